"""Reading what is new in one log file, and telling whether its indexed bytes are still there.

Per file the index keeps the byte offset of the last complete line, plus hashes of the file's
head and of the bytes just before that offset. A file that grew with both hashes intact is
read from the offset; anything else (rewritten in place, shrunk, replaced) is read again from
scratch. A file whose inode change time moved with its size and mtime as they were (a
``chmod``, a backup tool, a hard link made and removed), or one back with its size, mtime and
inode where a run found it gone, is checked against the same two hashes: a read of those 2 KB
at most, not a re-index.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from pathlib import Path

from indexer.sources import is_whole_document
from indexer.sources.base import load_whole_json
from indexer.store.rows import FileRow

HASH_SPAN = 1024
STALE_PARTIAL_SECONDS = 600  # a last line without "\n" this old is taken as finished


def span_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


@dataclass(frozen=True)
class NewBytes:
    """What one read of a log found: the bytes from ``start``, the complete part of them, and
    the hashes of the file up to ``consumed``."""

    append: bool  # read from the offset the index kept, the earlier bytes being as they were
    start: int
    data: bytes  # everything read from ``start``, a half-written last line included
    complete: bytes  # what the parser gets: whole lines (or the whole document)
    consumed: int  # where the next read starts
    whole: bool  # one JSON document: read whole every time
    head_hash: str
    tail_hash: str


def is_one_json_document(data: bytes) -> bool:
    """A pretty-printed JSON document (Codex's first format, or a log saved by hand) rather
    than one JSON value per line. The one place this is decided, for every agent."""
    first = data.split(b"\n", 1)[0].strip()
    if first in (b"{", b"["):
        return True
    if not first.startswith((b"{", b"[")) or b"\n" not in data.strip():
        return False
    # Line 1 opens a value it does not close, and the whole file is one value.
    return load_whole_json(first) is None and load_whole_json(data) is not None


def read_whole(agent: str, path: str, state: dict) -> bool:
    """Whether a log is read whole every time: its agent writes one JSON document, or a read
    found it to be one (``state``: its parser state as the index kept it)."""
    return is_whole_document(agent, Path(path)) or bool(state.get("_whole"))


def read_new_bytes(path: str, size: int, mtime: float, inode: int, row: FileRow | None, *,
                   whole: bool, from_start: bool, now: float) -> NewBytes:
    """Read what is new in ``path`` since ``row`` (None: a new file), or all of it when the
    earlier bytes changed or ``from_start``. Raises ``OSError`` as ``open`` does."""
    with open(path, "rb") as fh:
        head = fh.read(HASH_SPAN)
        append = (row is not None and not whole and not from_start and row.offset > 0
                  and size >= row.offset and row.inode == inode and _head_and_tail_match(fh, head, row))
        start = row.offset if append and row is not None else 0
        fh.seek(start)
        data = fh.read(max(0, size - start))
        if start == 0 and not whole and is_one_json_document(data):
            whole = True  # a pretty-printed JSON document: read it whole, every time
        complete, consumed = _complete_part(data, start, whole, now - mtime > STALE_PARTIAL_SECONDS)
        # Hashes of the file as it stands up to `consumed`, to recognise it next time.
        fh.seek(max(0, consumed - HASH_SPAN))
        tail_hash = span_hash(fh.read(consumed - max(0, consumed - HASH_SPAN)))
    return NewBytes(append, start, data, complete, consumed, whole, span_hash(head[: min(HASH_SPAN, consumed)]),
                    tail_hash)


def _complete_part(data: bytes, start: int, whole: bool, writer_gone: bool) -> tuple[bytes, int]:
    """The bytes the parser gets and where the next read starts: up to the last newline, or
    all of it for a whole document or a last line complete and long left alone."""
    if whole:
        return data, start + len(data)
    cut = data.rfind(b"\n") + 1
    partial = data[cut:]
    if partial.strip() and writer_gone and load_whole_json(partial) is not None:
        # The writer is long gone and its last line is complete JSON: take it.
        return data + b"\n", start + len(data)
    return data[:cut], start + cut


def _head_and_tail_match(fh, head: bytes, row: FileRow) -> bool:
    """Whether the file's first bytes and the bytes before ``row.offset`` hash as the index
    kept them (``fh`` is read from ``row.offset - HASH_SPAN``)."""
    if span_hash(head[: min(HASH_SPAN, row.offset)]) != row.head_hash:
        return False
    fh.seek(max(0, row.offset - HASH_SPAN))
    return span_hash(fh.read(row.offset - max(0, row.offset - HASH_SPAN))) == row.tail_hash


def indexed_bytes_unchanged(path: str, offset: int, head_hash: str | None, tail_hash: str | None) -> bool:
    """Whether ``path`` still holds the bytes the index read up to ``offset``, as far as its
    head and tail hashes tell: 2 KB read. False when it cannot be read (the run reads it then,
    and reports why)."""
    if not head_hash or not tail_hash:
        return False
    try:
        with open(path, "rb") as fh:
            head = fh.read(HASH_SPAN)
            if span_hash(head[: min(HASH_SPAN, offset)]) != head_hash:
                return False
            if offset <= HASH_SPAN:
                return span_hash(head[:offset]) == tail_hash
            fh.seek(offset - HASH_SPAN)
            return span_hash(fh.read(HASH_SPAN)) == tail_hash
    except OSError:
        return False

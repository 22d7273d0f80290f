"""Reading back tool output and tool-call arguments kept as references into their log
(``indexer.store.log_ref``).

The literal's bytes come from the log's archived copy (``indexer.archive.read_ranges``), else
from the log itself while it is still there; either must match the digest taken when it was
indexed. When neither does (the archive was deleted, the log rewritten since) the transcript
shows a one-line placeholder saying so, never other text.

A transcript's references are read together (``read_log_refs``): each log looked up once
(``indexer.store.log_places``), its copy opened once and read in offset order, where one at a
time cost two queries, a stat and an open per tool output. One reference is a batch of one.

The archive is imported here, on the first reference read: a search that shows no tool output
and a hook never load it (or zstandard).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from indexer.util.sized_cache import SizedCache
from indexer.store.log_places import log_of
from indexer.store.log_ref import LogRef
from indexer.store.packing import unreadable

TEXT_CACHE_CHARS = 8_000_000  # about 3,000 tool outputs of the usual ~2,800 characters


def read_log_ref(value: bytes, file_id: int | None, conn: sqlite3.Connection | None) -> str:
    """The text a stored reference stands for, or a placeholder saying why it cannot be read."""
    return read_log_refs([(value, file_id)], conn)[0]


def read_log_refs(refs: Sequence[tuple[bytes, int | None]], conn: sqlite3.Connection | None) -> list[str]:
    """``read_log_ref`` for each (stored value, file id), in the order given."""
    texts: list[str | None] = [None] * len(refs)
    wanted: dict[tuple[Path, str], list[tuple[int, LogRef, tuple]]] = {}  # per log: (index, ref, cache key)
    places: dict[int, tuple[Path, str] | None] = {}
    for i, (value, file_id) in enumerate(refs):
        ref = LogRef.decode(value)
        if ref is None:
            texts[i] = unreadable("its stored reference is damaged")
            continue
        if conn is None or file_id is None:
            where = None
        elif file_id in places:
            where = places[file_id]
        else:
            where = places[file_id] = log_of(conn, file_id)
        if where is None:
            texts[i] = unreadable("it is kept in its log, which this index no longer lists")
            continue
        cache_key = (str(where[0]), where[1], value)
        texts[i] = _texts.get(cache_key)
        if texts[i] is None:
            wanted.setdefault(where, []).append((i, ref, cache_key))
    for (archive_root, key), items in wanted.items():
        found = _read_log(archive_root, key, [ref for _, ref, _ in items])
        for (i, _, cache_key), text in zip(items, found):
            if text is None:
                texts[i] = unreadable(f"it is kept in the log {key}, and neither the log nor its archived copy"
                                      " holds it as it was indexed")
            else:
                _texts.put(cache_key, text)
                texts[i] = text
    return texts  # type: ignore[return-value]  # every one set above


def forget_texts_read() -> None:
    """Read every reference from its log again (a test's or a bench's fresh process)."""
    _texts.clear()


def _read_log(archive_root: Path, key: str, refs: list[LogRef]) -> list[str | None]:
    """The texts of references into one log: from its archived copy, those it cannot give
    (or gives changed) from the log itself; None for what neither holds as it was indexed."""
    texts = _rebuilt(refs, _from_archive(archive_root, key, refs))
    missing = [j for j, text in enumerate(texts) if text is None]
    if missing:
        again = _rebuilt([refs[j] for j in missing], _from_log(archive_root, key, [refs[j] for j in missing]))
        for j, text in zip(missing, again):
            texts[j] = text
    return texts


def _rebuilt(refs: list[LogRef], raws: list[bytes | None]) -> list[str | None]:
    return [ref.rebuild(raw) if raw is not None else None for ref, raw in zip(refs, raws)]


def _from_archive(archive_root: Path, key: str, refs: list[LogRef]) -> list[bytes | None]:
    from indexer.archive import read_ranges

    return read_ranges(archive_root, key, [(ref.offset, ref.length) for ref in refs])


def _from_log(archive_root: Path, key: str, refs: list[LogRef]) -> list[bytes | None]:
    """The bytes from the log itself (the archive's record of its real path first: a stored
    path shows undecodable bytes as ``\\xNN``)."""
    from indexer.archive import ArchiveError, archived_log_path
    from indexer.archive.ranges import positioned_reads

    try:
        path = archived_log_path(archive_root, key) or key
    except ArchiveError:  # a damaged manifest: the stored path is the log's own where it is UTF-8
        path = key
    try:
        return positioned_reads(path, [(ref.offset, ref.length) for ref in refs])
    except ValueError:  # a path with a NUL byte
        return [None] * len(refs)


# Texts already read back: the app reads a live session's whole transcript again each time its
# log grows. A reference names its bytes by offset, length and checksum, so a text read once
# stays the text it stands for.
_texts: SizedCache[str] = SizedCache(TEXT_CACHE_CHARS)

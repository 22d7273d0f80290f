"""Tool output and tool-call arguments an older index stored packed, replaced by references
into the archived logs (``indexer.store.log_ref``): what ``threadback index --compact`` does
before it rewrites the file, so an index built before references existed shrinks as a new build
would.

Per log with packed output or arguments and an archived copy: the copy is parsed again from its
start, each message matched to its stored row by its dedup key, and a row's packed text (or
arguments) replaced only where the parsed value is the stored one and a reference into the copy
rebuilds it exactly. Anything else stays as it is. One transaction per log, under the index lock
``compact_index`` holds.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from indexer.ingest.args_refs import args_reference_for
from indexer.ingest.log_refs import reference_for
from indexer.ingest.log_read import is_one_json_document
from indexer.ingest.prepare import dedup_digest
from indexer.ingest.sanitise import sanitise_message
from indexer.models import TOOL_CALL
from typing import NamedTuple
from indexer.sources import PARSERS, is_whole_document
from indexer.sources.base import ParsedMessage, SessionMeta
from indexer.store.packing import LOG_REF_MAGIC, unpack

_PACKED = "indexed IN (0, 3) AND typeof(text) = 'blob' AND substr(text, 1, 4) != ?"  # 3: an output with searchable lines
_PACKED_ARGS = f"kind = '{TOOL_CALL}' AND typeof(detail) = 'blob' AND substr(detail, 1, 4) != ?"


class Referred(NamedTuple):
    """How many packed copies were replaced by references."""

    outputs: int = 0
    arguments: int = 0


def refer_packed_outputs(conn: sqlite3.Connection, archive_root: Path,
                         on_log: Callable[[int, int], None] | None = None) -> Referred:
    """Replace packed tool output and arguments by references where the archive allows.
    ``on_log(done, total)`` is called once before the first log and after each one (a
    log takes milliseconds to seconds, so a display throttles it, not this loop)."""
    logs = conn.execute(
        "SELECT id, path, agent FROM files f WHERE archived = 1 AND EXISTS"
        f" (SELECT 1 FROM messages m WHERE m.file_id = f.id AND (({_PACKED}) OR ({_PACKED_ARGS})))",
        (LOG_REF_MAGIC, LOG_REF_MAGIC)).fetchall()
    outputs = arguments = 0
    if on_log:
        on_log(0, len(logs))
    for done, (file_id, key, agent) in enumerate(logs, 1):
        referred = _refer_if_readable(conn, archive_root, file_id, key, agent)
        outputs, arguments = outputs + referred.outputs, arguments + referred.arguments
        if on_log:
            on_log(done, len(logs))
    return Referred(outputs, arguments)


def _refer_if_readable(conn: sqlite3.Connection, archive_root: Path, file_id: int, key: str, agent: str) -> Referred:
    data = _archived_bytes(archive_root, key)
    if data is None or agent not in PARSERS or is_whole_document(agent, Path(key)) or is_one_json_document(data):
        return Referred()
    try:
        return _refer_one_log(conn, file_id, key, agent, data)
    except (ValueError, TypeError, KeyError, RecursionError, MemoryError):
        return Referred()  # a log its parser cannot read again keeps its packed copies, as they are


def _archived_bytes(archive_root: Path, key: str) -> bytes | None:
    """The log's archived bytes. A copy sealed before frames were cut at ``FRAME_BYTES`` is cut
    now: a reference into it would otherwise decompress the whole log each time it is shown."""
    from indexer.archive import ArchiveError
    from indexer.archive.manifest import find_manifest
    from indexer.archive.reader import read_all
    from indexer.archive.writer import FRAME_BYTES, new_generation

    try:
        manifest_file, manifest = find_manifest(archive_root, key)
        data = read_all(manifest_file, manifest)
        if any(frame.raw_length > FRAME_BYTES for frame in manifest.frames):
            new_generation(manifest_file, manifest, manifest.path, data)
        return data
    except (ArchiveError, OSError, MemoryError):
        return None


def _refer_one_log(conn: sqlite3.Connection, file_id: int, key: str, agent: str, data: bytes) -> Referred:
    parsed = PARSERS[agent].parse(Path(key), data, 1, {}, SessionMeta())
    outputs: dict[int, ParsedMessage] = {}
    calls: dict[int, ParsedMessage] = {}
    for m in parsed.messages:
        if m.span is not None and (not m.indexed or (m.kind == TOOL_CALL and m.detail)):
            sanitise_message(m)
            (outputs if not m.indexed else calls)[dedup_digest(m.dedup)] = m
    texts = _replacements(conn, file_id, "text", _PACKED, outputs, lambda m: m.text, reference_for, data)
    details = _replacements(conn, file_id, "detail", _PACKED_ARGS, calls, lambda m: m.detail, args_reference_for,
                            data)
    if texts or details:
        with conn:
            conn.executemany("UPDATE messages SET text = ? WHERE id = ?", texts)
            conn.executemany("UPDATE messages SET detail = ? WHERE id = ?", details)
    return Referred(len(texts), len(details))


def _replacements(conn: sqlite3.Connection, file_id: int, column: str, packed: str, parsed: dict[int, ParsedMessage],
                  value_of: Callable[[ParsedMessage], str | None],
                  reference: Callable[[str, bytes, tuple[int, int], int], bytes | None],
                  data: bytes) -> list[tuple[bytes, int]]:
    """(reference, row id) for each of the log's rows whose packed ``column`` holds exactly the
    value parsed again (``value_of`` the message of the same dedup key) and which ``reference``
    finds in the log's bytes."""
    found = []
    for row_id, stored, dedup in conn.execute(f"SELECT id, {column}, dedup FROM messages WHERE file_id = ? AND {packed}",
                                              (file_id, LOG_REF_MAGIC)):
        m = parsed.get(dedup)
        if m is None or m.span is None:  # only messages with a span are parsed again
            continue
        value = value_of(m)
        if value is None or unpack(stored, conn) != value:
            continue
        ref = reference(value, data, m.span, 0)
        if ref is not None:
            found.append((ref, row_id))
    return found

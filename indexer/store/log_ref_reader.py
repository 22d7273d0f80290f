"""Reading back tool output kept as a reference into its log (``indexer.store.log_ref``).

The literal's bytes come from the log's archived copy (``indexer.archive.read_range``), else
from the log itself while it is still there; either must match the digest taken when it was
indexed. When neither does (the archive was deleted, the log rewritten since) the transcript
shows a one-line placeholder saying so, never other text.

The archive is imported here, on the first reference read: a search that shows no tool output
and a hook never load it (or zstandard).
"""

from __future__ import annotations

import sqlite3
from functools import lru_cache
from pathlib import Path

from indexer.sized_cache import SizedCache
from indexer.store.log_ref import LogRef
from indexer.store.packing import unreadable

TEXT_CACHE_CHARS = 8_000_000  # about 3,000 tool outputs of the usual ~2,800 characters


def read_log_ref(value: bytes, file_id: int | None, conn: sqlite3.Connection | None) -> str:
    """The text a stored reference stands for, or a placeholder saying why it cannot be read."""
    ref = LogRef.decode(value)
    if ref is None:
        return unreadable("its stored reference is damaged")
    where = _log_of(conn, file_id) if conn is not None and file_id is not None else None
    if where is None:
        return unreadable("it is kept in its log, which this index no longer lists")
    archive_root, key = where
    cache_key = (str(archive_root), key, value)
    text = _texts.get(cache_key)
    if text is not None:
        return text
    for read in (_from_archive, _from_log):
        raw = read(archive_root, key, ref)
        text = ref.rebuild(raw) if raw is not None else None
        if text is not None:
            _texts.put(cache_key, text)
            return text
    return unreadable(f"it is kept in the log {key}, and neither the log nor its archived copy holds it"
                      " as it was indexed")


def forget_texts_read() -> None:
    """Read every reference from its log again (a test's or a bench's fresh process)."""
    _texts.clear()


def _log_of(conn: sqlite3.Connection, file_id: int) -> tuple[Path, str] | None:
    """(the index's archive folder, the log's path as stored) for a message's log."""
    row = conn.execute("SELECT path FROM main.files WHERE id = ?", (file_id,)).fetchone()
    main = next((r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"), "")
    if row is None or not main:
        return None
    return _archive_dir(main), row[0]


@lru_cache(maxsize=8)
def _archive_dir(index_file: str) -> Path:
    from indexer.archive import archive_dir_for

    return archive_dir_for(Path(index_file))


def _from_archive(archive_root: Path, key: str, ref: LogRef) -> bytes | None:
    from indexer.archive import ArchiveError, read_range

    try:
        return read_range(archive_root, key, ref.offset, ref.length)
    except ArchiveError:
        return None


def _from_log(archive_root: Path, key: str, ref: LogRef) -> bytes | None:
    """The bytes from the log itself (the archive's record of its real path first: a stored
    path shows undecodable bytes as ``\\xNN``)."""
    from indexer.archive import ArchiveError, archived_log_path

    try:
        path = archived_log_path(archive_root, key) or key
    except ArchiveError:  # a damaged manifest: the stored path is the log's own where it is UTF-8
        path = key
    try:
        with open(path, "rb") as fh:
            fh.seek(ref.offset)
            return fh.read(ref.length)
    except (OSError, ValueError):
        return None


# Texts already read back: the app reads a live session's whole transcript again each time its
# log grows. A reference names its bytes by offset, length and checksum, so a text read once
# stays the text it stands for.
_texts: SizedCache[str] = SizedCache(TEXT_CACHE_CHARS)

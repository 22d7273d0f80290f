"""Opening the index: WAL mode, the schema version checked (and migrated), the side file attached.

Readers open it read-only, so searching works on read-only media and never takes a write lock;
where even SQLite's shared-memory file cannot be made (read-only media), the file is opened as
immutable. Every failure comes out as an ``IndexError_`` that says what is wrong
(``indexer.store.health``).

Paths are handled as strings with ``os.path`` on the open path: ``pathlib`` (with
``urllib.parse`` and ``ipaddress``, ~4 ms) is loaded only where a ``Path`` is handed out.
"""

from __future__ import annotations

import os
import sqlite3

from indexer.store import side_file
from indexer.store.errors import IndexOutdatedError, IndexTooNewError, IndexUnavailableError
from indexer.store.file_uri import path_uri
from indexer.store.health import (
    damage_marker, diagnose, found_damaged, is_read_only_place, parent_folder, side_damage_marker,
)
from indexer.store.schema import SCHEMA_VERSION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

DEFAULT_BUSY_TIMEOUT_MS = 5000  # how long a person's command waits for another program's lock
# New index files get 16 KB pages: rows of 0.5-3 KB leave a quarter of 4 KB pages unused (issue
# 18). It must be set before the first table and before WAL; an older file keeps its size until
# ``index --compact`` (indexer.store.compact).
PAGE_SIZE = 16384


def busy_timeout_ms() -> int:
    """``DEFAULT_BUSY_TIMEOUT_MS``, or ``THREADBACK_BUSY_TIMEOUT_MS`` when that is a whole number
    of milliseconds (the tests wait out a held lock in a fraction of the 5 s)."""
    value = os.environ.get("THREADBACK_BUSY_TIMEOUT_MS", "")
    return int(value) if value.isdigit() else DEFAULT_BUSY_TIMEOUT_MS


BUSY_TIMEOUT_MS = busy_timeout_ms()


def file_uri(path: str | Path, *, readonly: bool = False, immutable: bool = False) -> str:
    """A ``file:`` URI for ``path`` (any bytes its name holds), read-only if asked
    (``immutable``: without a lock or a -shm file, for read-only media)."""
    uri = path_uri(path)
    if readonly:
        uri += "?mode=ro" + ("&immutable=1" if immutable else "")
    return uri


class IndexConnection(sqlite3.Connection):
    """A connection to the index, with room for what cannot change while it is open: the log
    each file id names (``indexer.store.log_places``). A files row is never deleted nor its path
    changed; a rebuilt index is a new file, which only a new connection reads."""

    log_places: object = None  # set by indexer.store.log_places on its first lookup


def connect(path: str | Path, *, readonly: bool = False, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """Open the index with WAL so searches read while an index run writes."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IndexUnavailableError(path, "it is a folder, not an index file; give --db a file path")
    if readonly and (damage := found_damaged(path)) is not None:
        raise damage  # a reader: the whole index is told damaged, not just the pages it reads
    if not readonly and os.path.exists(path) and is_read_only_place(path):
        readonly = True  # read-only media or rights: read it as it is; an update says why it cannot
    try:
        conn = _open(path, readonly, busy_timeout_ms)
    except sqlite3.Error as exc:
        raise diagnose(path, exc) from exc
    except OSError as exc:
        raise diagnose(path, exc) from exc
    return conn


def _open(path: str, readonly: bool, busy_timeout_ms: int) -> sqlite3.Connection:
    if not readonly:
        os.makedirs(parent_folder(path), exist_ok=True)
    uri = file_uri(path, readonly=readonly, immutable=readonly and is_read_only_place(path))
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None, factory=IndexConnection)
    conn.row_factory = sqlite3.Row
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if not readonly:
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # only a new, empty file takes it
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise IndexTooNewError(path, version)
        if readonly and version < SCHEMA_VERSION:
            raise IndexOutdatedError(path, version)  # its tables lack columns a reader asks for
        if not readonly and version < SCHEMA_VERSION:
            from indexer.store.migrations import migrate  # a read-only open never migrates

            migrate(conn, version)
        if version == SCHEMA_VERSION:
            # Touch the tables so a truncated or foreign file fails here, not mid-search.
            conn.execute("SELECT count(*) FROM meta").fetchone()
        side_file.attach(conn, path, readonly=readonly)
    except BaseException:
        conn.close()
        raise
    return conn


def index_files(path: str | Path) -> list[Path]:
    """Every file an index consists of: the main file, the side file, their WAL and SHM."""
    from pathlib import Path

    return [Path(str(path) + suffix) for suffix in ("", "-wal", "-shm")] + side_file.side_files(path)


def remove_index_files(path: str | Path) -> None:
    """Delete the index and its side files (for ``--rebuild``)."""
    for p in index_files(path):
        p.unlink(missing_ok=True)
    for marker in (damage_marker(path), side_damage_marker(path)):
        marker.unlink(missing_ok=True)

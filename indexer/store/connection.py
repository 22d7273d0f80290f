"""Opening the index: WAL mode, the schema version checked (and migrated), the side file attached."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from indexer.store import side_file
from indexer.store.errors import IndexCorruptError, IndexOutdatedError, IndexTooNewError
from indexer.store.migrations import migrate
from indexer.store.schema import SCHEMA_VERSION


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """Open the index with WAL so searches read while an index run writes."""
    path = Path(path)
    if readonly:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False, isolation_level=None)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA busy_timeout = 5000")
        if not readonly:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise IndexTooNewError(path, version)
        if readonly and version < SCHEMA_VERSION:
            raise IndexOutdatedError(path, version)  # its tables lack columns a reader asks for
        if not readonly and version < SCHEMA_VERSION:
            migrate(conn, version)
        if version == SCHEMA_VERSION:
            # Touch the tables so a truncated or foreign file fails here, not mid-search.
            conn.execute("SELECT count(*) FROM meta").fetchone()
        side_file.attach(conn, path, readonly=readonly)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise IndexCorruptError(path, str(exc)) from exc
    return conn


def index_files(path: Path) -> list[Path]:
    """Every file an index consists of: the main file, the side file, their WAL and SHM."""
    return [Path(str(path) + suffix) for suffix in ("", "-wal", "-shm")] + side_file.side_files(path)


def remove_index_files(path: Path) -> None:
    """Delete the index and its side files (for ``--rebuild``)."""
    for p in index_files(path):
        p.unlink(missing_ok=True)

"""An index file as an older Threadback wrote it, made from a current one: what a schema step
added is taken out again, so the upgrade tests start from the real older layout."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def without_version_5(path: Path, *, version: int = 4) -> None:
    """Take out what schema 5 added (``files.ctime_ns``, the ``failures`` table, the stat index
    covering ctime_ns) and mark the file ``version``. Folding (schema 4) is left as it is."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP INDEX files_by_stat")
    conn.execute("ALTER TABLE files DROP COLUMN ctime_ns")
    conn.execute("CREATE INDEX files_by_stat ON files (path, size, mtime_ns, inode, missing)")
    conn.execute("DROP TABLE failures")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.close()


def stat_index_columns(conn: sqlite3.Connection) -> list[str]:
    return [r[2] for r in conn.execute("PRAGMA index_info(files_by_stat)")]


def columns_of(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def without_version_6(path: Path) -> None:
    """Take out what schema 6 added (``files.archived`` and its index, ``files_touched``) and
    mark the file version 5."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP INDEX files_unarchived")
    conn.execute("ALTER TABLE files DROP COLUMN archived")
    conn.execute("DROP TABLE files_touched")
    conn.execute("PRAGMA user_version = 5")
    conn.close()

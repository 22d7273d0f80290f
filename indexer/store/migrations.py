"""Bringing an older index file up to the current schema."""

from __future__ import annotations

import sqlite3

from indexer.store.schema import SCHEMA, SCHEMA_VERSION


def migrate(conn: sqlite3.Connection, from_version: int) -> None:
    """Bring an older schema up to ``SCHEMA_VERSION`` (0 means a new, empty file).

    Two connections may open a new index at once (the app loads its counts while it starts
    an index run): the write lock is taken first and the version read again under it, so
    the second one finds the work done.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            existing = conn.execute(
                "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
            ).fetchone()[0]
            if existing:
                raise sqlite3.DatabaseError("holds tables but no Threadback schema version")
        elif version == 1:
            # The bigram table moves to the side file; the next index run refills it there.
            conn.execute("DROP TABLE IF EXISTS cjk2")
        if 0 < version < 5:
            _upgrade_to_5(conn)
        if 0 < version < 6:
            _upgrade_to_6(conn)
        if version < SCHEMA_VERSION:
            # Every statement is IF NOT EXISTS: this creates a new file's tables and adds what
            # an older file lacks (version 1: the files_missing and files_by_stat indexes).
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            if 0 < version < 3:
                _upgrade_to_3(conn)
            if 0 < version < 4:
                _upgrade_to_4(conn)
            if 0 < version < 7:
                _upgrade_to_7(conn)
            if 0 < version < 11:
                _upgrade_to_11(conn)
            # The message count lives in meta, so showing it costs no count(*).
            conn.execute("INSERT OR REPLACE INTO meta(key, value) SELECT 'message_count', count(*) FROM messages")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back itself (a full disk): keep its error
            conn.execute("ROLLBACK")
        raise


def _upgrade_to_3(conn: sqlite3.Connection) -> None:
    """Columns for branch links, resume folders and message marks, and the data moved to them."""
    for table, column in (("sessions", "branched_from"), ("sessions", "resume_cwd"), ("messages", "mark")):
        if column not in {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
    # A Pi branch or fork was stored as a subagent of the session it came from.
    conn.execute(
        "UPDATE sessions SET branched_from = parent_session_id, parent_session_id = NULL"
        " WHERE agent = 'pi' AND parent_session_id IS NOT NULL"
    )
    # Title ranks moved up one to put slash commands (/clear, /init) below a real prompt.
    conn.execute("UPDATE sessions SET title_rank = title_rank + 1 WHERE title_rank > 0")
    conn.execute("UPDATE sessions SET title_rank = 1 WHERE title_rank = 2 AND title GLOB '/[A-Za-z]*'")
    # The parsers read more record types now: every log still on disk is read again, whole.
    conn.execute("UPDATE files SET offset = 0, mtime_ns = 0, parser_state = NULL WHERE missing = 0")


def _upgrade_to_4(conn: sqlite3.Connection) -> None:
    """The indexes take folded text now: every id below this mark was indexed unfolded; the
    next index run folds those entries in place (``indexer.upkeep.refold``)."""
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value)"
        " SELECT 'fold_below', max(id) + 1 FROM messages HAVING count(*) > 0"
    )


def _upgrade_to_5(conn: sqlite3.Connection) -> None:
    """Inode change times of log files; runs before the schema so its index finds the column.
    Existing rows keep 0 (unknown): the next run fills them in without reading the files."""
    if "ctime_ns" not in {r[1] for r in conn.execute("PRAGMA table_info(files)")}:
        conn.execute("ALTER TABLE files ADD COLUMN ctime_ns INTEGER NOT NULL DEFAULT 0")
    conn.execute("DROP INDEX IF EXISTS files_by_stat")  # rebuilt with ctime_ns by the schema


def _upgrade_to_6(conn: sqlite3.Connection) -> None:
    """files.archived; runs before the schema so its index finds the column. No log is read
    again: the next run copies every log still on disk into the archive
    (``indexer.upkeep.archive_backfill``), and the files-touched table fills as logs are read
    (a log that grows is read from where it stopped, so an old session's earlier tool calls
    appear once its log is read from the start again: ``index --rebuild``)."""
    if "archived" not in {r[1] for r in conn.execute("PRAGMA table_info(files)")}:
        conn.execute("ALTER TABLE files ADD COLUMN archived INTEGER NOT NULL DEFAULT 0")


TOKEN_COLUMNS = ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens")


def _upgrade_to_7(conn: sqlite3.Connection) -> None:
    """Token usage per session. Existing sessions keep NULL (not counted) until their log is
    read again: a file that grows is then read whole once (``token_usage.needs_token_reread``),
    and ``index --rebuild`` counts every session at once."""
    have = {r[1] for r in conn.execute("PRAGMA table_info(sessions)")}
    for column in TOKEN_COLUMNS:
        if column not in have:
            conn.execute(f"ALTER TABLE sessions ADD COLUMN {column} INTEGER")


def _upgrade_to_11(conn: sqlite3.Connection) -> None:
    """Tool output is searchable by its error lines now: every stored output below this mark
    gets them from the next index runs (``indexer.upkeep.excerpts_backfill``)."""
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value)"
        " SELECT 'excerpts_below', max(id) + 1 FROM messages HAVING count(*) > 0"
    )

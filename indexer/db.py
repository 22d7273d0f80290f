"""The index file: connection settings, schema and its version.

Layout (see README "The index"):
- ``sessions``  one row per agent session, keyed by (agent, session_id)
- ``files``     one row per log file: where we stopped reading and how to tell it changed
- ``messages``  every normalised message, in order; ``indexed`` says whether it is searchable
- ``fts``       FTS5 trigram index over ``messages.text`` (external content: no second copy)
- ``fts_side``  a second trigram shard, written by the helper process on big runs; each
                message's text is in one of the two (``messages.indexed``: 1 main, 2 side)
- ``cjk2``      FTS5 over CJK character bigrams, so 2-character words (驗收, 設定) are found
                from an index (the trigram index cannot match a 2-character term)
- ``fts_side`` and ``cjk2`` live in the side file attached as ``side``, see ``indexer.side_index``
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from indexer import side_index

# 1: first release. 2: the bigram table and a second trigram shard in a side file.
# 3: branch links, resume folders and message marks; every log is read again by newer parsers.
SCHEMA_VERSION = 3

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT
);
CREATE TABLE IF NOT EXISTS sessions (
    id                INTEGER PRIMARY KEY,
    agent             TEXT NOT NULL,
    session_id        TEXT NOT NULL,
    parent_session_id TEXT,
    branched_from     TEXT,
    source_path       TEXT NOT NULL,
    project_path      TEXT,
    project_name      TEXT,
    resume_cwd        TEXT,
    git_branch        TEXT,
    model             TEXT,
    title             TEXT,
    title_rank        INTEGER NOT NULL DEFAULT 0,
    start_ts          REAL,
    end_ts            REAL,
    message_count     INTEGER NOT NULL DEFAULT 0,
    UNIQUE (agent, session_id)
);
CREATE INDEX IF NOT EXISTS sessions_by_start ON sessions (start_ts);
CREATE INDEX IF NOT EXISTS sessions_by_parent ON sessions (parent_session_id);
CREATE INDEX IF NOT EXISTS sessions_by_project ON sessions (agent, project_path, start_ts);

CREATE TABLE IF NOT EXISTS files (
    id            INTEGER PRIMARY KEY,
    path          TEXT NOT NULL UNIQUE,
    agent         TEXT NOT NULL,
    session_rowid INTEGER,
    size          INTEGER NOT NULL DEFAULT 0,
    mtime_ns      INTEGER NOT NULL DEFAULT 0,
    inode         INTEGER NOT NULL DEFAULT 0,
    offset        INTEGER NOT NULL DEFAULT 0,
    head_hash     TEXT,
    tail_hash     TEXT,
    parser_state  TEXT,
    missing       INTEGER NOT NULL DEFAULT 0,
    indexed_at    REAL
);
CREATE INDEX IF NOT EXISTS files_by_session ON files (session_rowid);
CREATE INDEX IF NOT EXISTS files_missing ON files (missing) WHERE missing = 1;  -- counted at start-up
-- What a no-change run compares with stat(): read from this index, not the wide rows.
CREATE INDEX IF NOT EXISTS files_by_stat ON files (path, size, mtime_ns, inode, missing);

CREATE TABLE IF NOT EXISTS messages (
    id            INTEGER PRIMARY KEY,
    session_rowid INTEGER NOT NULL,
    file_id       INTEGER NOT NULL,
    ordinal       INTEGER NOT NULL,
    role          TEXT NOT NULL,
    kind          TEXT NOT NULL,
    tool_name     TEXT,
    ts            REAL,
    text          TEXT NOT NULL,
    detail        TEXT,
    indexed       INTEGER NOT NULL,
    has_cjk       INTEGER NOT NULL DEFAULT 0,
    dedup         INTEGER UNIQUE,
    mark          TEXT
);
CREATE INDEX IF NOT EXISTS messages_by_session ON messages (session_rowid, ordinal);
CREATE INDEX IF NOT EXISTS messages_by_file ON messages (file_id);

CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5 (
    text, content='messages', content_rowid='id', tokenize='trigram'
);
"""


class IndexError_(RuntimeError):
    """Base for index problems that carry a message meant for the user."""


class IndexCorruptError(IndexError_):
    def __init__(self, path: Path, detail: str):
        super().__init__(
            f"the index at {path} is damaged or not a Threadback index ({detail}); "
            "run `threadback index --rebuild` to build it again from the logs"
        )
        self.path = path


class IndexOutdatedError(IndexError_):
    def __init__(self, path: Path, version: int):
        super().__init__(
            f"the index at {path} has schema version {version}, older than this Threadback's "
            f"({SCHEMA_VERSION}); run `threadback index` once to upgrade it"
        )


class IndexTooNewError(IndexError_):
    def __init__(self, path: Path, version: int):
        super().__init__(
            f"the index at {path} has schema version {version}, newer than this Threadback "
            f"understands ({SCHEMA_VERSION}); upgrade Threadback or use --rebuild"
        )


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
        side_index.attach(conn, path, readonly=readonly)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise IndexCorruptError(path, str(exc)) from exc
    return conn


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
        if version < SCHEMA_VERSION:
            # Every statement is IF NOT EXISTS: this creates a new file's tables and adds what
            # an older file lacks (version 1: the files_missing and files_by_stat indexes).
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            if 0 < version < 3:
                _upgrade_to_3(conn)
            # The message count lives in meta, so showing it costs no count(*).
            conn.execute("INSERT OR REPLACE INTO meta(key, value) SELECT 'message_count', count(*) FROM messages")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
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


def index_files(path: Path) -> list[Path]:
    """Every file an index consists of: the main file, the side file, their WAL and SHM."""
    return [Path(str(path) + suffix) for suffix in ("", "-wal", "-shm")] + side_index.side_files(path)


def remove_index_files(path: Path) -> None:
    """Delete the index and its side files (for ``--rebuild``)."""
    for p in index_files(path):
        p.unlink(missing_ok=True)

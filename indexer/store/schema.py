"""The index file's tables and their version.

Layout (see README "The index"):
- ``sessions``  one row per agent session, keyed by (agent, session_id)
- ``files``     one row per log file: where we stopped reading and how to tell it changed
- ``messages``  every normalised message, in order; ``indexed`` says whether it is searchable
- ``fts``       FTS5 trigram index over ``messages.text`` (external content: no second copy), fed the
                Traditional/Simplified-folded text (``indexer.text.fold``)
- ``fts_side``  a second trigram shard, written by the helper process on big runs; each
                message's text is in one of the two (``messages.indexed``: 1 main, 2 side)
- ``output_excerpts`` a tool output's searchable lines (``messages.indexed`` 3: in ``fts_side``)
- ``cjk2``      FTS5 over CJK character bigrams, so 2-character words (驗收, 設定) are found
                from an index (the trigram index cannot match a 2-character term)
- ``failures``  log files that could not be stored, as they were when they failed: skipped
                until they change, counted in every run's summary (``index --problems``)
- ``pack_dictionaries`` the zstd dictionaries packed tool output needs (``indexer.store.pack_dictionary``)
- ``files_touched`` paths that tool calls read, edited, wrote, deleted or named in a shell
                command, normalised, per session (``threadback files``, the ``file:`` filter)
- ``fts_side`` and ``cjk2`` live in the side file attached as ``side``, see ``indexer.ingest.side``
"""

from __future__ import annotations

# 1: first release. 2: the bigram table and a second trigram shard in a side file.
# 3: branch links, resume folders and message marks; every log is read again by newer parsers.
# 4: the trigram and bigram indexes hold Traditional/Simplified-folded text (indexer.text.fold);
#    an older index is folded in place by its next index run (indexer.upkeep.refold).
# 5: files.ctime_ns (a same-size rewrite with its mtime restored is noticed) and ``failures``.
# 6: ``files_touched``, and files.archived (the log has a copy in the archive, indexer.archive).
# 7: token usage per session (sessions.*_tokens; NULL: not counted, see indexer.sources.token_usage).
# 8: sessions_by_end (a time filter finds its sessions without reading them all, issue 18).
# 9: the word index (``indexer.store.word_index``), in the side file: nothing changes here, but a
#    build from before it must not add messages the word index would then lack. The next
#    index run fills it for the messages already stored (``indexer.upkeep.words_backfill``).
# 10: ``pack_dictionaries``: tool output is packed with zstd and a dictionary the index trains
#    on its own first outputs (``indexer.store.packing``). Older zlib values stay as they are.
# 11: ``output_excerpts``: tool output's searchable lines (indexed = 3); an older index fills
#     them in for its stored outputs on its next index runs (indexer.upkeep.excerpts_backfill).
SCHEMA_VERSION = 11

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
    input_tokens       INTEGER,
    output_tokens      INTEGER,
    cache_write_tokens INTEGER,
    cache_read_tokens  INTEGER,
    UNIQUE (agent, session_id)
);
CREATE INDEX IF NOT EXISTS sessions_by_start ON sessions (start_ts);
CREATE INDEX IF NOT EXISTS sessions_by_end ON sessions (end_ts);
CREATE INDEX IF NOT EXISTS sessions_by_parent ON sessions (parent_session_id);
CREATE INDEX IF NOT EXISTS sessions_by_project ON sessions (agent, project_path, start_ts);

CREATE TABLE IF NOT EXISTS files (
    id            INTEGER PRIMARY KEY,
    path          TEXT NOT NULL UNIQUE,
    agent         TEXT NOT NULL,
    session_rowid INTEGER,
    size          INTEGER NOT NULL DEFAULT 0,
    mtime_ns      INTEGER NOT NULL DEFAULT 0,
    ctime_ns      INTEGER NOT NULL DEFAULT 0,  -- 0: not known yet (an index from before version 5)
    inode         INTEGER NOT NULL DEFAULT 0,
    offset        INTEGER NOT NULL DEFAULT 0,
    head_hash     TEXT,
    tail_hash     TEXT,
    parser_state  TEXT,
    missing       INTEGER NOT NULL DEFAULT 0,
    indexed_at    REAL,
    archived      INTEGER NOT NULL DEFAULT 0  -- 1: indexer.archive holds a copy up to offset
);
CREATE INDEX IF NOT EXISTS files_by_session ON files (session_rowid);
CREATE INDEX IF NOT EXISTS files_missing ON files (missing) WHERE missing = 1;  -- counted at start-up
CREATE INDEX IF NOT EXISTS files_unarchived ON files (id) WHERE archived = 0;  -- the archive's catch-up
-- What a no-change run compares with stat(): read from this index, not the wide rows.
CREATE INDEX IF NOT EXISTS files_by_stat ON files (path, size, mtime_ns, ctime_ns, inode, missing);

CREATE TABLE IF NOT EXISTS failures (
    path      TEXT PRIMARY KEY,
    agent     TEXT NOT NULL,
    size      INTEGER NOT NULL,
    mtime_ns  INTEGER NOT NULL,
    ctime_ns  INTEGER NOT NULL,
    inode     INTEGER NOT NULL,
    line      INTEGER NOT NULL,
    reason    TEXT NOT NULL,
    failed_at REAL NOT NULL
);

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
    dedup         INTEGER,  -- its key in dedup_keys (an index made before that table: UNIQUE here)
    mark          TEXT
);
CREATE INDEX IF NOT EXISTS messages_by_session ON messages (session_rowid, ordinal);
CREATE INDEX IF NOT EXISTS messages_by_file ON messages (file_id);

-- Holds each message's Traditional/Simplified-folded text (indexer.text.fold), not messages.text
-- as it is: delete with the folded text, and never 'rebuild' it from its content table.
-- columnsize=0: no per-row token counts (fts_docsize, 6 MB of a 1 GB tree's index), which only
-- bm25() and xColumnSize read, and nothing here ranks with them (indexer.search.scoring).
-- An index made before keeps its counts: both forms answer every query the same.
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5 (
    text, content='messages', content_rowid='id', tokenize='trigram', columnsize=0
);

-- A tool output's searchable lines (indexer.text.output_excerpt), as written: its message has
-- indexed = 3 and the side file's trigram table holds these lines, folded.
CREATE TABLE IF NOT EXISTS output_excerpts (
    id   INTEGER PRIMARY KEY,  -- the message's id
    text TEXT NOT NULL
);

-- One row per path a tool call touched. A log's rows go when it is read again from its start.
CREATE TABLE IF NOT EXISTS files_touched (
    session_rowid INTEGER NOT NULL,
    file_id       INTEGER NOT NULL,
    path          TEXT NOT NULL,  -- absolute, normalised (indexer.files.paths)
    name          TEXT NOT NULL,  -- its last part: a suffix lookup ("src/app.py") starts here
    kind          TEXT NOT NULL,  -- read, edit, write, delete or shell
    ts            REAL,           -- the latest such touch in what was read
    calls         INTEGER NOT NULL DEFAULT 1  -- tool calls that touched it so (in what was read)
);
CREATE INDEX IF NOT EXISTS files_touched_by_path ON files_touched (path);
CREATE INDEX IF NOT EXISTS files_touched_by_name ON files_touched (name);
CREATE INDEX IF NOT EXISTS files_touched_by_file ON files_touched (file_id);
CREATE INDEX IF NOT EXISTS files_touched_by_session ON files_touched (session_rowid);

-- zstd dictionaries that packed tool output names by id (indexer.store.pack_dictionary).
-- Never deleted or changed: a stored value needs its dictionary to be read.
CREATE TABLE IF NOT EXISTS pack_dictionaries (
    id         INTEGER PRIMARY KEY,  -- the id zstd writes into each frame
    data       BLOB NOT NULL,
    trained_at REAL NOT NULL
);
"""
# Each stored message's dedup key: what finds a copy of a message (indexer.store.dedup_keys,
# which also makes it in an index from before it).
DEDUP_KEYS_TABLE = "CREATE TABLE IF NOT EXISTS dedup_keys (key INTEGER PRIMARY KEY, id INTEGER NOT NULL)"
SCHEMA += DEDUP_KEYS_TABLE + ";\n"

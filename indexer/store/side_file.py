"""The side file's shape and how a main connection sees it (``indexer.ingest.side`` writes it).

``<index>.side`` holds ``cjk2`` (FTS5 over CJK character bigrams, for 2-character words the
trigram index cannot match) and ``fts_side`` (a second trigram shard). A main connection
attaches it as ``side``, so queries name its tables as if they were local. Why a second file
and how the two stay consistent: see ``indexer.ingest.side``.

``attach`` works on ``str`` paths with ``os.path``: opening the index for a search loads no
``pathlib`` (~4 ms with ``urllib.parse`` and ``ipaddress``).
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
from operator import add

from indexer.store.file_uri import path_uri
from indexer.store.word_index import WORD_TABLES, WORDS_SCHEMA

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SCHEMA_NAME = "side"  # the side file's schema name on a main connection
IN_MAIN, IN_SIDE = 1, 2  # messages.indexed: which trigram table holds the text (0: not indexed)
# messages.indexed of a tool output whose searchable lines (``output_excerpts``) the side trigram
# table holds: its own text is stored packed or as a reference into its log.
IN_OUTPUT = 3
# A message's searchable text in SQL, for a query over ``messages m``: a tool output's excerpt,
# any other message's text.
SEARCHED_TEXT = ("CASE m.indexed WHEN 3 THEN (SELECT o.text FROM main.output_excerpts o WHERE o.id = m.id)"
                 " ELSE m.text END")
SIDE_PAGE_SIZE = 16384  # as the main file's (indexer.store.connection.PAGE_SIZE), set on creation



@functools.cache
def _cjk_run() -> re.Pattern[str]:
    """Two or more CJK characters; compiled on first use (its big ranges take ~2 ms): a search
    for Latin words never needs it."""
    return re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{2,}")


SIDE_SCHEMA = """
CREATE TABLE IF NOT EXISTS {s}.meta (key TEXT PRIMARY KEY, value TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS {s}.cjk2 USING fts5 (
    grams, content='', tokenize='unicode61', detail='none', columnsize=0
);
CREATE VIRTUAL TABLE IF NOT EXISTS {s}.fts_side USING fts5 (
    text, content='', tokenize='trigram', columnsize=0
);
"""
SIDE_TABLES = {"meta", "cjk2", "fts_side"}


def cjk_bigrams(text: str) -> str:
    """Space-separated distinct 2-character pairs from every CJK run in ``text``."""
    if text.isascii():  # a flag of the string, no pass over it: most messages
        return ""
    runs = _cjk_run().findall(text)
    if not runs:
        return ""
    # map(add, run, run[1:]) pairs each character with the next in C: twice the speed of slicing.
    # A set, in no order: the table keeps no positions (detail='none'), and a set is ~20% faster
    # than an ordered dict here.
    return " ".join({pair for run in runs for pair in map(add, run, run[1:])})


def side_path(main_path: str | Path) -> Path:
    from pathlib import Path

    return Path(_side_name(main_path))


def _side_name(main_path: str | Path) -> str:
    return f"{main_path}.side"


def side_files(main_path: str | Path) -> list[Path]:
    from pathlib import Path

    side = _side_name(main_path)
    return [Path(side + suffix) for suffix in ("", "-wal", "-shm")]


def attach(conn: sqlite3.Connection, main_path: str | Path, *, readonly: bool) -> None:
    """Attach the side file as ``side`` so queries name its tables as if they were local.

    A read-only connection without a side file gets an empty in-memory one (what lives only
    there is not found until the next index run). A writable one creates the file, and
    replaces a damaged one with an empty file that the next index run refills.
    """
    side = _side_name(main_path)
    if readonly:
        if os.path.exists(side):
            try:
                uri = _uri(side) + "?mode=ro" + ("&immutable=1" if _read_only_place(side) else "")
                conn.execute(f"ATTACH DATABASE ? AS {SCHEMA_NAME}", (uri,))
                have = {r[0] for r in conn.execute(f"SELECT name FROM {SCHEMA_NAME}.sqlite_master")}
                if SIDE_TABLES <= have:
                    return
            except sqlite3.DatabaseError:
                pass
            _detach(conn)
        conn.execute(f"ATTACH DATABASE ':memory:' AS {SCHEMA_NAME}")
        conn.executescript((SIDE_SCHEMA + WORDS_SCHEMA).format(s=SCHEMA_NAME))
        return
    for attempt in (1, 2):
        try:
            conn.execute(f"ATTACH DATABASE ? AS {SCHEMA_NAME}", (_uri(side),))
            conn.execute(f"PRAGMA {SCHEMA_NAME}.page_size = {SIDE_PAGE_SIZE}")  # a new file only
            conn.execute(f"PRAGMA {SCHEMA_NAME}.journal_mode = WAL")
            have = {r[0] for r in conn.execute(f"SELECT name FROM {SCHEMA_NAME}.sqlite_master")}
            if not SIDE_TABLES | WORD_TABLES <= have:  # new, or from before the word index
                conn.executescript((SIDE_SCHEMA + WORDS_SCHEMA).format(s=SCHEMA_NAME))
            return
        except sqlite3.DatabaseError:
            _detach(conn)
            if attempt == 2:
                raise
            for path in side_files(main_path):
                path.unlink(missing_ok=True)


def _uri(path: str) -> str:
    """A ``file:`` URI for ``path``, whatever bytes its name holds (the main connection is
    opened with URIs on, so ATTACH takes one)."""
    return path_uri(path)


def _read_only_place(path: str) -> bool:
    try:
        return not os.access(path, os.W_OK) or bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def replace_side(conn: sqlite3.Connection, main_path: str | Path) -> None:
    """Swap a damaged side file for an empty one; the next ``ensure_paired`` refills it."""
    _detach(conn)
    for path in side_files(main_path):
        path.unlink(missing_ok=True)
    attach(conn, main_path, readonly=False)


def _detach(conn: sqlite3.Connection) -> None:
    try:
        conn.execute(f"DETACH DATABASE {SCHEMA_NAME}")
    except sqlite3.Error:
        pass


def _meta(conn: sqlite3.Connection, schema: str, key: str) -> str | None:
    row = conn.execute(f"SELECT value FROM {schema}.meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def next_message_id(conn: sqlite3.Connection) -> int:
    """The first id a new run may hand out: above every message and every id handed out before."""
    top = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM main.messages").fetchone()[0]
    handed_out = _meta(conn, SCHEMA_NAME, "next_id")
    return max(int(top), int(handed_out or 0))


def is_paired(conn: sqlite3.Connection) -> bool:
    token = _meta(conn, "main", "side_token")
    return token is not None and token == _meta(conn, SCHEMA_NAME, "token")

"""The side file beside the main index: the 2-character CJK word index and a second trigram shard.

Why a file of its own: SQLite lets one process write a database at a time, and on a cold
build the trigram writer is the bottleneck. The helper process that parses logs also writes
this file: every message's CJK bigrams (so 驗收 and 設定 are found from an index), and the
trigram index of the files it has time for (``fts_side``), while the main process writes
messages and the main trigram table (``fts``). A message's text is indexed in exactly one
of the two trigram tables; ``messages.indexed`` says which (1 main, 2 side). Searches ask both.

How the two files stay consistent without a shared transaction:
- Whoever writes this file hands out message ids (``next_id`` in its meta) and never reuses
  one, so an entry here always describes the text of the message with that id, if that
  message exists.
- This file commits before the main file commits the messages it covers: a crash leaves at
  most extra entries (for messages that never landed), never missing ones.
- Entries of removed messages stay: deleting from a contentless table needs the old text, and
  an interrupted run could delete twice and damage the table. Searches join on ``messages``,
  which drops them; ``index --rebuild`` starts both files afresh.
- A token stored in both files pairs them. A missing, foreign or damaged side file is rebuilt
  from the messages table by the next index run (``ensure_paired``).
"""

from __future__ import annotations

import re
import secrets
import sqlite3
import time
from operator import add
from pathlib import Path
from typing import Callable

SCHEMA_NAME = "side"  # the side file's schema name on a main connection
# The side writer decides when both files commit: per batch, not per file (an FTS commit
# writes a segment), and at least this often so searches see a long run's progress.
BATCH_BYTES = 16 * 1024 * 1024
BATCH_SECONDS = 1.0
CACHE_KIB = 64 * 1024
IN_MAIN, IN_SIDE = 1, 2  # messages.indexed: which trigram table holds the text (0: not indexed)

_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{2,}")

SIDE_SCHEMA = """
CREATE TABLE IF NOT EXISTS {s}.meta (key TEXT PRIMARY KEY, value TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS {s}.cjk2 USING fts5 (
    grams, content='', tokenize='unicode61', detail='none', columnsize=0
);
CREATE VIRTUAL TABLE IF NOT EXISTS {s}.fts_side USING fts5 (
    text, content='', tokenize='trigram'
);
"""
SIDE_TABLES = {"meta", "cjk2", "fts_side"}


def cjk_bigrams(text: str) -> str:
    """Space-separated distinct 2-character pairs from every CJK run in ``text``."""
    runs = _CJK_RUN.findall(text)
    if not runs:
        return ""
    # map(add, run, run[1:]) pairs each character with the next in C: twice the speed of slicing.
    return " ".join(dict.fromkeys([pair for run in runs for pair in map(add, run, run[1:])]))


def side_path(main_path: Path) -> Path:
    return Path(str(main_path) + ".side")


def side_files(main_path: Path) -> list[Path]:
    side = side_path(main_path)
    return [Path(str(side) + suffix) for suffix in ("", "-wal", "-shm")]


def attach(conn: sqlite3.Connection, main_path: Path, *, readonly: bool) -> None:
    """Attach the side file as ``side`` so queries name its tables as if they were local.

    A read-only connection without a side file gets an empty in-memory one (what lives only
    there is not found until the next index run). A writable one creates the file, and
    replaces a damaged one with an empty file that the next index run refills.
    """
    side = side_path(main_path)
    if readonly:
        if side.exists():
            try:
                conn.execute(f"ATTACH DATABASE ? AS {SCHEMA_NAME}", (f"file:{side}?mode=ro",))
                have = {r[0] for r in conn.execute(f"SELECT name FROM {SCHEMA_NAME}.sqlite_master")}
                if SIDE_TABLES <= have:
                    return
            except sqlite3.DatabaseError:
                pass
            _detach(conn)
        conn.execute(f"ATTACH DATABASE ':memory:' AS {SCHEMA_NAME}")
        conn.executescript(SIDE_SCHEMA.format(s=SCHEMA_NAME))
        return
    for attempt in (1, 2):
        try:
            conn.execute(f"ATTACH DATABASE ? AS {SCHEMA_NAME}", (str(side),))
            conn.execute(f"PRAGMA {SCHEMA_NAME}.journal_mode = WAL")
            have = {r[0] for r in conn.execute(f"SELECT name FROM {SCHEMA_NAME}.sqlite_master")}
            if not SIDE_TABLES <= have:
                conn.executescript(SIDE_SCHEMA.format(s=SCHEMA_NAME))
            return
        except sqlite3.DatabaseError:
            _detach(conn)
            if attempt == 2:
                raise
            for path in side_files(main_path):
                path.unlink(missing_ok=True)


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


def ensure_paired(conn: sqlite3.Connection, progress: Callable[[str], None] | None = None) -> bool:
    """Refill the side file from ``messages`` unless it belongs to this index. True if refilled.

    Call with the index lock held and no side writer running.
    """
    if is_paired(conn):
        return False
    if progress:
        progress("rebuilding the side index from stored messages")
    token = secrets.token_hex(8)
    s = SCHEMA_NAME
    conn.execute("BEGIN")
    try:
        for table in ("cjk2", "fts_side"):
            conn.execute(f"INSERT INTO {s}.{table}({table}) VALUES ('delete-all')")
        rows = conn.execute("SELECT id, text FROM main.messages WHERE indexed != 0 AND has_cjk = 1")
        conn.executemany(
            f"INSERT INTO {s}.cjk2(rowid, grams) VALUES (?, ?)",
            ((rowid, grams) for rowid, text in rows if (grams := cjk_bigrams(text))),
        )
        conn.execute(
            f"INSERT INTO {s}.fts_side(rowid, text) SELECT id, text FROM main.messages WHERE indexed = ?",
            (IN_SIDE,),
        )
        top = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM main.messages").fetchone()[0]
        for key, value in (("token", token), ("next_id", str(top))):
            conn.execute(
                f"INSERT INTO {s}.meta(key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
        conn.execute(
            "INSERT INTO main.meta(key, value) VALUES ('side_token', ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (token,),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return True


class SideWriter:
    """Hands out message ids and writes the side file, in the helper process or inline.

    Commits on its own schedule; ``add`` reports when it did, so the main writer knows that
    every file it has stored so far is covered and it may commit too.
    """

    def __init__(self, main_path: Path, next_id: int):
        self.conn = sqlite3.connect(side_path(main_path), isolation_level=None)
        self.conn.execute("PRAGMA busy_timeout = 5000")
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        self.next_id = self._committed_next_id = next_id
        self._pending_bytes = 0
        self._last_commit = time.monotonic()
        self._open = False

    def add(self, rows: list[tuple], size: int, *, take_text: bool) -> tuple[int, bool]:
        """Give ``rows`` consecutive ids, index their bigrams and, with ``take_text``, their text.

        ``rows`` are ``_message_row`` tuples: text 5th, indexed 7th, bigrams 8th.
        Returns (first id, whether everything added so far is now committed).
        """
        first = self.next_id
        self.next_id += len(rows)
        grams = [(first + i, r[7]) for i, r in enumerate(rows) if r[7]]
        texts = [(first + i, r[4]) for i, r in enumerate(rows) if r[6]] if take_text else []
        if grams or texts:
            self._begin()
            self.conn.executemany("INSERT INTO cjk2(rowid, grams) VALUES (?, ?)", grams)
            self.conn.executemany("INSERT INTO fts_side(rowid, text) VALUES (?, ?)", texts)
        self._pending_bytes += size
        due = self._pending_bytes >= BATCH_BYTES or time.monotonic() - self._last_commit >= BATCH_SECONDS
        if due:
            self.commit()
        return first, due

    def commit(self) -> None:
        """Make everything added so far durable, with the id counter."""
        if not self._open and self.next_id == self._committed_next_id:
            return
        self._begin()
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES ('next_id', ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (str(self.next_id),),
        )
        self.conn.execute("COMMIT")
        self._committed_next_id = self.next_id
        self._open = False
        self._pending_bytes = 0
        self._last_commit = time.monotonic()

    def close(self) -> None:
        """Drop what was not committed (its messages were not committed either)."""
        if self._open:
            self.conn.execute("ROLLBACK")
            self._open = False
        self.conn.close()

    def _begin(self) -> None:
        if not self._open:
            self.conn.execute("BEGIN IMMEDIATE")
            self._open = True

"""The side file beside the main index: the 2-character CJK word index and a second trigram shard.

Why a file of its own: SQLite lets one process write a database at a time, and on a cold
build the trigram writer is the bottleneck. The helper process that parses logs also writes
this file: every message's CJK bigrams (so 驗收 and 設定 are found from an index), and the
trigram index of the files it has time for (``fts_side``), while the main process writes
messages and the main trigram table (``fts``). A message's text is indexed in exactly one
of the two trigram tables; ``messages.indexed`` says which (1 main, 2 side). Searches ask both.
A tool output's searchable lines (``indexer.text.output_excerpt``, kept in ``output_excerpts``)
are always indexed here (``messages.indexed`` 3).
Both trigram tables and ``cjk2`` take the Traditional/Simplified-folded text (``indexer.text.fold``).

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

import sqlite3
import time
from pathlib import Path
from typing import Callable, Iterator, NamedTuple, TypeVar

from indexer.store.rows import MessageRow
from indexer.store import word_index as words
from indexer.store.side_file import (
    IN_OUTPUT, IN_SIDE, SCHEMA_NAME, SEARCHED_TEXT, cjk_bigrams, is_paired, next_message_id, side_path,
)
from indexer.text.fold import fold, index_form
from indexer.text.word_tokens import word_string

# The side writer decides when both files commit: per batch, not per file (an FTS commit
# writes a segment), and at least this often so searches see a long run's progress.
BATCH_BYTES = 16 * 1024 * 1024
BATCH_SECONDS = 1.0
# The side file's page cache: what it writes is mostly new FTS5 segments, appended, so a big
# cache buys little, and it filled with the history: at 64 MB the helper process peaked at
# 74 / 93 / 138 MB on 0.2 / 1 / 3 GB trees (issue 38's target: under 120 MB at any size).
CACHE_KIB = 16 * 1024


def ensure_paired(conn: sqlite3.Connection, progress: Callable[[str], None] | None = None) -> bool:
    """Refill the side file from ``messages`` unless it belongs to this index. True if refilled.

    Call with the index lock held and no side writer running.
    """
    if is_paired(conn):
        if words.words_below(conn, SCHEMA_NAME) is None:  # from before the word index: filled from here down
            words.set_below(conn, SCHEMA_NAME, next_message_id(conn))
        return False
    if progress:
        progress("rebuilding the side index from stored messages")
    import secrets  # here: it loads OpenSSL (~3 ms), and a side file is rarely refilled

    token = secrets.token_hex(8)
    s = SCHEMA_NAME
    conn.execute("BEGIN")
    try:
        for table in ("cjk2", "fts_side"):
            conn.execute(f"INSERT INTO {s}.{table}({table}) VALUES ('delete-all')")
        rows = conn.execute(f"SELECT m.id, {SEARCHED_TEXT} FROM main.messages m WHERE m.indexed != 0 AND m.has_cjk = 1")
        conn.executemany(
            f"INSERT INTO {s}.cjk2(rowid, grams) VALUES (?, ?)",
            ((rowid, grams) for rowid, text in rows if (grams := cjk_bigrams(fold(text)))),
        )
        conn.executemany(f"INSERT INTO {s}.fts_side(rowid, text) VALUES (?, ?)", side_texts(conn))
        top = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM main.messages").fetchone()[0]
        words.clear(conn, s)
        words.set_below(conn, s, top)  # refilled after the run (indexer.upkeep.words_backfill)
        # fold_done: every entry here is folded already (see indexer.upkeep.refold).
        for key, value in (("token", token), ("next_id", str(top)), ("fold_done", str(top))):
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
        if conn.in_transaction:  # SQLite may have rolled back itself (a full disk): keep its error
            conn.execute("ROLLBACK")
        raise
    return True


def side_texts(conn: sqlite3.Connection) -> Iterator[tuple[int, str]]:
    """What the side trigram shard holds, in id order: the folded text (indexer.text.fold) of
    the messages it indexes."""
    for rowid, text in conn.execute(f"SELECT m.id, {SEARCHED_TEXT} FROM main.messages m WHERE m.indexed IN (?, ?)"
                                    " ORDER BY m.id", (IN_SIDE, IN_OUTPUT)):
        yield rowid, index_form(text) or text


T = TypeVar("T")


class SideEntries(NamedTuple):
    """What one file adds to the side file, by each row's place in the file (its id is the
    first id plus that place): CJK bigrams, text for ``fts_side``, terms for the word index."""

    row_count: int  # rows in the file: ids handed out
    grams: list[tuple[int, str]]
    texts: list[tuple[int, str | bytes]]  # str, as indexed text is
    terms: list[tuple[int, str]]


def side_entries(rows: list[MessageRow], grams: list[str], *, take_text: bool, skip: int = 0) -> SideEntries:
    """The side file's entries for one file's rows; ``take_text``: its text goes to ``fts_side``;
    ``skip``: its first rows are stored already, ids, entries and all (a whole document read
    again, ``indexer.ingest.kept_rows``): ids and entries go to the rest."""
    rows, grams = rows[skip:], grams[skip:]
    pairs = [(i, g) for i, g in enumerate(grams) if g]
    texts = [(i, r.fts_text or r.text) for i, r in enumerate(rows) if r.indexed] if take_text else []
    terms = [(i, word_string(r.text)) for i, r in enumerate(rows) if r.indexed and isinstance(r.text, str)]
    # A tool output's searchable lines are always indexed here (messages.indexed = IN_OUTPUT).
    for i, r in enumerate(rows):
        if r.excerpt:
            texts.append((i, r.fts_text or r.excerpt))
            terms.append((i, word_string(r.excerpt)))
    return SideEntries(len(rows), pairs, texts, terms)


def _from(first: int, entries: list[tuple[int, T]]) -> list[tuple[int, T]]:
    return [(first + i, value) for i, value in entries]


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
        self._words = words.WordWriter("main")

    def add(
        self, rows: list[MessageRow], grams: list[str], size: int, *, take_text: bool, skip: int = 0
    ) -> tuple[int, bool]:
        """Give ``rows`` consecutive ids, index their bigrams (``grams``, one string per row)
        and, with ``take_text``, their text; all but the first ``skip`` rows (stored already).

        Returns (first id, whether everything added so far is now committed).
        """
        return self.write(side_entries(rows, grams, take_text=take_text, skip=skip), size)

    def write(self, entries: SideEntries, size: int) -> tuple[int, bool]:
        """``add`` for entries made elsewhere (``side_entries``): the main process makes them
        for a file it prepared itself (``indexer.ingest.helper``)."""
        first = self.next_id
        self.next_id += entries.row_count
        if entries.grams or entries.texts or entries.terms:
            self._begin()
            self.conn.executemany("INSERT INTO cjk2(rowid, grams) VALUES (?, ?)", _from(first, entries.grams))
            self.conn.executemany("INSERT INTO fts_side(rowid, text) VALUES (?, ?)", _from(first, entries.texts))
            self._words.add(self.conn, _from(first, entries.terms))
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
        if self._open and self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # closing drops it anyway
        self._open = False
        self.conn.close()

    def _begin(self) -> None:
        if not self._open:
            self.conn.execute("BEGIN IMMEDIATE")
            self._open = True

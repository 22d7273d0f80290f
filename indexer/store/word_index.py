"""The word index in the side file: which messages hold which words, and every word seen.

- ``words``     FTS5, contentless, no positions: rowid = message id, one row per message
                holding its distinct terms (``indexer.text.word_tokens``)
- ``vocab``     every term once, never deleted (a stale term only widens a lookup)
- ``vocab_tri`` trigram FTS5 over ``vocab``: "which terms contain serverror" is one small MATCH

Why the side file: the helper process that parses logs writes it (``indexer.ingest.side``), so
the main writer, the cold build's bottleneck, pays nothing; and the side file's rules already
fit a narrowing index. It commits before the main file, and entries of removed messages stay
(ids are never reused): the index may name messages that are gone or no longer match, never
miss one. Searches use it only when ``words_below`` is 0: every message below the id where
the index started is filled in (``indexer.upkeep.words_backfill``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

WORDS_SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS {s}.words USING fts5 (
    terms, content='', tokenize="unicode61 tokenchars '_' remove_diacritics 0", detail='none', columnsize=0
);
CREATE TABLE IF NOT EXISTS {s}.vocab (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE IF NOT EXISTS {s}.vocab_tri USING fts5 (
    term, content='vocab', content_rowid='id', tokenize='trigram', columnsize=0
);
"""
WORD_TABLES = {"words", "vocab", "vocab_tri"}
BELOW_KEY = "words_below"  # messages with lower ids are not in the index yet; "0": complete
# Terms a writer remembers inserting, so a common one is not sent again: ~10 MB of the helper's
# memory at this many (a real history's vocabulary passes it; the set is emptied then).
KNOWN_TERMS = 100_000


def set_below(conn: sqlite3.Connection, schema: str, value: int) -> None:
    conn.execute(
        f"INSERT INTO {schema}.meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (BELOW_KEY, str(value)),
    )


def words_below(conn: sqlite3.Connection, schema: str) -> int | None:
    """Where the index still lacks messages (below this id; 0: nowhere), None: not started."""
    try:
        row = conn.execute(f"SELECT value FROM {schema}.meta WHERE key = ?", (BELOW_KEY,)).fetchone()
    except sqlite3.OperationalError:
        return None
    return int(row[0]) if row else None


class WordWriter:
    """Adds messages' terms to ``words`` and new terms to ``vocab`` and ``vocab_tri``.

    It remembers the terms it inserted, so it must be dropped with its connection's
    transaction if that is rolled back (the side writer's and the backfill's are)."""

    def __init__(self, schema: str):
        self.schema = schema
        self._known: set[str] = set()

    def add(self, conn: sqlite3.Connection, rows: Iterable[tuple[int, str]]) -> None:
        """``rows``: (message id, ``word_string`` of its text); empty strings are skipped."""
        s = self.schema
        # Ascending ids: FTS5 writes its pending terms out as a new segment whenever a rowid is
        # lower than the last one, so the backfill's newest-first rows would each make one
        # (17x the time of the inserts).
        rows = sorted((rowid, terms) for rowid, terms in rows if terms)
        if not rows:
            return
        conn.executemany(f"INSERT INTO {s}.words(rowid, terms) VALUES (?, ?)", rows)
        new = set(" ".join([terms for _, terms in rows]).split(" "))  # in C: no loop over each term
        new -= self._known
        if not new:
            return
        if len(self._known) + len(new) > KNOWN_TERMS:
            self._known.clear()
        self._known |= new
        top = conn.execute(f"SELECT coalesce(max(id), 0) FROM {s}.vocab").fetchone()[0]
        conn.executemany(f"INSERT OR IGNORE INTO {s}.vocab(term) VALUES (?)", ((t,) for t in new))
        conn.execute(f"INSERT INTO {s}.vocab_tri(rowid, term) SELECT id, term FROM {s}.vocab WHERE id > ?", (top,))


def clear(conn: sqlite3.Connection, schema: str) -> None:
    """Empty the message rows (the side file is being refilled); the vocabulary stays."""
    conn.execute(f"INSERT INTO {schema}.words(words) VALUES ('delete-all')")

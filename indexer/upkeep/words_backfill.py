"""Filling the word index for messages stored before it existed (or before the side file was
refilled), newest first, in batches that each commit: a stopped run goes on where it left off.

Messages stored from the run that started the word index onwards get their words from the side
writer (``indexer.ingest.side``); below that id, this fills them in and moves the mark down.
"""

from __future__ import annotations

import sqlite3
from typing import Callable

from indexer.store import word_index as words
from indexer.store.side_file import SCHEMA_NAME, SEARCHED_TEXT
from indexer.text.word_tokens import word_string

BATCH = 5000


def backfill_words(conn: sqlite3.Connection, should_stop: Callable[[], bool] | None = None) -> bool:
    """Fill the word index below its mark; True when it is complete. Call with the index lock
    held and no side writer running."""
    below = words.words_below(conn, SCHEMA_NAME)
    if below is None or below == 0:
        return below == 0
    writer = words.WordWriter(SCHEMA_NAME)
    while not (should_stop and should_stop()):
        rows = conn.execute(f"SELECT m.id, {SEARCHED_TEXT} FROM main.messages m WHERE m.id < ? AND m.indexed != 0"
                            " ORDER BY m.id DESC LIMIT ?", (below, BATCH)).fetchall()
        conn.execute("BEGIN")
        try:
            writer.add(conn, ((rowid, word_string(text)) for rowid, text in rows))
            below = rows[-1][0] if len(rows) == BATCH else 0
            words.set_below(conn, SCHEMA_NAME, below)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        if below == 0:
            return True
    return False

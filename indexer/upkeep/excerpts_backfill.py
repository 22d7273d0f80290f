"""Making the tool output an older index stored searchable: its error lines
(``indexer.text.output_excerpt``) found and indexed, newest first, in batches that each commit, a
few seconds a run, so a stopped or short run goes on where it left off.

An index made before outputs were searchable marks where its outputs end (``excerpts_below`` in
``meta``, ``indexer.store.migrations``); messages stored since get their lines when they are
written (``indexer.ingest.prepare``). Reading an output may unpack it or read it back from its
log (``indexer.store.rows``); one whose log is gone and not archived is skipped.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Callable

from indexer.models import TOOL_CALL, TOOL_RESULT, Message
from indexer.store import word_index as words
from indexer.store.rows import MESSAGE_COLUMNS, messages_from_rows
from indexer.store.side_file import IN_OUTPUT, SCHEMA_NAME, cjk_bigrams
from indexer.text.fold import index_form
from indexer.text.output_excerpt import output_excerpt
from indexer.text.word_tokens import word_string

MARK = "excerpts_below"
BATCH = 500
SECONDS_PER_RUN = 10.0  # a run's share: a long history becomes searchable over a few runs


def excerpts_below(conn: sqlite3.Connection) -> int:
    """Outputs below this message id have not been looked at yet (0: none left)."""
    row = conn.execute("SELECT value FROM main.meta WHERE key = ?", (MARK,)).fetchone()
    return int(row[0]) if row else 0


def backfill_excerpts(conn: sqlite3.Connection, should_stop: Callable[[], bool] | None = None,
                      seconds: float = SECONDS_PER_RUN) -> bool:
    """Index the error lines of stored outputs below the mark for up to ``seconds``; True when
    none is left. Call with the index lock held and no side writer running."""
    below = excerpts_below(conn)
    started = time.monotonic()
    writer = words.WordWriter(SCHEMA_NAME)
    while below and not (should_stop and should_stop()) and time.monotonic() - started < seconds:
        rows = conn.execute(f"SELECT {MESSAGE_COLUMNS} FROM main.messages WHERE id < ? AND kind = ? AND indexed = 0"
                            " ORDER BY id DESC LIMIT ?", (below, TOOL_RESULT, BATCH)).fetchall()
        found = []
        for message in messages_from_rows(rows, conn):
            excerpt = output_excerpt(message.text, message.tool_name, _call_line(conn, message))
            if excerpt:
                found.append((message.id, excerpt, index_form(excerpt) or excerpt))
        below = rows[-1]["id"] if len(rows) == BATCH else 0
        _store(conn, writer, found, below)
    return below == 0


def _call_line(conn: sqlite3.Connection, output: Message) -> str | None:
    """The one-line form of the call an output answers: the session's last call before it."""
    row = conn.execute("SELECT text FROM main.messages WHERE session_rowid = ? AND ordinal < ? AND kind = ?"
                       " ORDER BY ordinal DESC LIMIT 1", (output.session_rowid, output.ordinal, TOOL_CALL)).fetchone()
    return row[0] if row and isinstance(row[0], str) else None


def _store(conn: sqlite3.Connection, writer: words.WordWriter, found: list[tuple[int, str, str]], below: int) -> None:
    word_mark = words.words_below(conn, SCHEMA_NAME) or 0  # below it, the word backfill adds them
    conn.execute("BEGIN")
    try:
        # One transaction over both files, each committed whole (WAL: not atomic across them): an
        # entry without its message's mark is never reached; a mark without its entry only misses.
        conn.executemany(f"INSERT INTO {SCHEMA_NAME}.fts_side(rowid, text) VALUES (?, ?)",
                         [(rowid, folded) for rowid, _, folded in found])
        grams = [(rowid, g) for rowid, _, folded in found if (g := cjk_bigrams(folded))]
        conn.executemany(f"INSERT INTO {SCHEMA_NAME}.cjk2(rowid, grams) VALUES (?, ?)", grams)
        writer.add(conn, [(rowid, word_string(excerpt)) for rowid, excerpt, _ in found if rowid >= word_mark])
        conn.executemany("INSERT OR REPLACE INTO main.output_excerpts(id, text) VALUES (?, ?)",
                         [(rowid, excerpt) for rowid, excerpt, _ in found])
        with_grams = {rowid for rowid, _ in grams}
        conn.executemany("UPDATE main.messages SET indexed = ?, has_cjk = ? WHERE id = ?",
                         [(IN_OUTPUT, int(rowid in with_grams), rowid) for rowid, _, _ in found])
        conn.execute("INSERT OR REPLACE INTO main.meta(key, value) VALUES (?, ?)", (MARK, str(below)))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise

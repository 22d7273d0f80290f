"""Folding an index built before Traditional/Simplified folding (schema 3 → 4), in place.

Every search index (``fts``, ``fts_side``, ``cjk2``) takes a message's folded text
(``indexer.text.fold``); an older index holds the text as it was. The schema-4 migration records
``fold_below`` (every id under it was indexed unfolded), and the next index run folds those
entries here, before it writes anything new: no log is read again, and sessions whose logs are
gone are folded too.

Only messages whose folded text differs are touched: each old entry is deleted with exactly the
values it was inserted with (FTS5's ``delete`` command) and the folded one inserted, in id order.
The two files commit separately, so each records how far it got (``fold_done`` in its own meta)
in the same transaction as the entries it changed: after a crash each resumes from its own mark,
and nothing is deleted twice.
"""

from __future__ import annotations

import sqlite3
from typing import Callable

from indexer.store.side_file import IN_MAIN, IN_SIDE, SCHEMA_NAME, cjk_bigrams
from indexer.text.fold import index_form

BATCH_IDS = 20_000  # message ids per transaction


def _meta(conn: sqlite3.Connection, schema: str, key: str) -> int:
    row = conn.execute(f"SELECT value FROM {schema}.meta WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _mark(conn: sqlite3.Connection, schema: str, value: int) -> None:
    conn.execute(
        f"INSERT INTO {schema}.meta(key, value) VALUES ('fold_done', ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (str(value),),
    )


def refold_index(
    conn: sqlite3.Connection,
    announce: Callable[[str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> bool:
    """Fold what an older index left unfolded; True when nothing is left (False: stopped).

    Call with the index lock held, the side file paired, and no side writer running."""
    below = _meta(conn, "main", "fold_below")
    if not below:
        return True
    main_done = _meta(conn, "main", "fold_done")
    side_done = _meta(conn, SCHEMA_NAME, "fold_done")
    start = min(main_done, side_done)
    while start < below:
        if should_stop and should_stop():
            return False
        if announce:
            announce(f"folding Traditional/Simplified Chinese in the index, once ({start:,} of {below:,})")
        end = min(start + BATCH_IDS, below)
        conn.execute("BEGIN")
        try:
            _refold_batch(conn, start, end, main_done, side_done)
            if end > main_done:
                _mark(conn, "main", end)
            if end > side_done:
                _mark(conn, SCHEMA_NAME, end)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite may have rolled back itself (a full disk): keep its error
                conn.execute("ROLLBACK")
            raise
        main_done, side_done, start = max(main_done, end), max(side_done, end), end
    conn.execute("DELETE FROM main.meta WHERE key IN ('fold_below', 'fold_done')")
    return True


def _refold_batch(conn: sqlite3.Connection, start: int, end: int, main_done: int, side_done: int) -> None:
    """Fold the entries of messages ``start`` ≤ id < ``end`` not folded yet in each file."""
    side = SCHEMA_NAME
    rows = conn.execute(
        "SELECT id, text, indexed, has_cjk FROM main.messages WHERE id >= ? AND id < ? AND indexed IN (1, 2) ORDER BY id",
        (start, end),
    ).fetchall()
    for rowid, text, where, has_cjk in rows:
        folded = index_form(text)
        if folded is None:
            continue
        if where == IN_MAIN and rowid >= main_done:
            _replace(conn, "main.fts", "fts", "text", rowid, text, folded)
        if rowid < side_done:
            continue
        if where == IN_SIDE:
            _replace(conn, f"{side}.fts_side", "fts_side", "text", rowid, text, folded)
        if has_cjk:
            _replace(conn, f"{side}.cjk2", "cjk2", "grams", rowid, cjk_bigrams(text), cjk_bigrams(folded))


def _replace(conn: sqlite3.Connection, table: str, name: str, column: str, rowid: int, old: str, new: str) -> None:
    if old == new:
        return
    if old:
        conn.execute(f"INSERT INTO {table}({name}, rowid, {column}) VALUES ('delete', ?, ?)", (rowid, old))
    if new:
        conn.execute(f"INSERT INTO {table}(rowid, {column}) VALUES (?, ?)", (rowid, new))

"""Folding an index built before Traditional/Simplified folding (schema 3 → 4), in place.

The side file's indexes hold folded text (``indexer.textfold``): ``cjk2`` the bigrams of the
folded text, ``fts_side`` the folded text of the messages it indexes plus a folded copy of
each main-shard message whose fold differs (the main ``fts`` keeps the text as it is, so it
stays consistent with its content table). An older side file holds unfolded entries. The
schema-4 migration records ``fold_below`` (every id under it was indexed unfolded), and the
next index run fixes those entries here before it writes anything new: no log is read again,
and sessions whose logs are gone are folded too.

Only messages whose folded text differs are touched; an old entry is deleted with exactly the
values it was inserted with (the side tables are contentless: FTS5's ``delete`` command needs
them). The side file records how far it got (``fold_done`` in its meta) in the same transaction
as the entries it changed, so a crash resumes from there and nothing is deleted twice.
"""

from __future__ import annotations

import sqlite3
from typing import Callable

from indexer.store.side_file import IN_MAIN, IN_SIDE, SCHEMA_NAME, cjk_bigrams
from indexer.textfold import index_form

BATCH_IDS = 20_000  # message ids per transaction


def _meta(conn: sqlite3.Connection, schema: str, key: str) -> int:
    row = conn.execute(f"SELECT value FROM {schema}.meta WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


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
    start = _meta(conn, SCHEMA_NAME, "fold_done")
    while start < below:
        if should_stop and should_stop():
            return False
        if announce:
            announce(f"folding Traditional/Simplified Chinese in the index, once ({start:,} of {below:,})")
        end = min(start + BATCH_IDS, below)
        conn.execute("BEGIN")
        try:
            _refold_batch(conn, start, end)
            conn.execute(
                f"INSERT INTO {SCHEMA_NAME}.meta(key, value) VALUES ('fold_done', ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(end),),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        start = end
    conn.execute("DELETE FROM main.meta WHERE key = 'fold_below'")
    return True


def _refold_batch(conn: sqlite3.Connection, start: int, end: int) -> None:
    """Fold the side entries of messages ``start`` ≤ id < ``end``, in id order (FTS5 writes
    rowids in order cheaply)."""
    side = SCHEMA_NAME
    rows = conn.execute(
        "SELECT id, text, indexed, has_cjk FROM main.messages WHERE id >= ? AND id < ? AND indexed != 0 ORDER BY id",
        (start, end),
    ).fetchall()
    for rowid, text, where, has_cjk in rows:
        folded = index_form(text)
        if folded is None:
            continue
        if where == IN_SIDE:
            conn.execute(f"INSERT INTO {side}.fts_side(fts_side, rowid, text) VALUES ('delete', ?, ?)", (rowid, text))
        if where in (IN_SIDE, IN_MAIN):
            conn.execute(f"INSERT INTO {side}.fts_side(rowid, text) VALUES (?, ?)", (rowid, folded))
        old, new = cjk_bigrams(text) if has_cjk else "", cjk_bigrams(folded)
        if old != new:
            if old:
                conn.execute(f"INSERT INTO {side}.cjk2(cjk2, rowid, grams) VALUES ('delete', ?, ?)", (rowid, old))
            if new:
                conn.execute(f"INSERT INTO {side}.cjk2(rowid, grams) VALUES (?, ?)", (rowid, new))

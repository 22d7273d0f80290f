"""Where the codes live: tables in the index file itself, so they commit with it, go with
``--rebuild`` and are never out of step with a file beside it.

- ``meaning_blocks``  one row per 4,096 message ids: the ids present (uint16, from the block's
                      first id) and their codes (uint8 rows), both sorted by id. A search reads
                      a few hundred rows, not one per message.
- ``meaning_gone``    ids of embedded messages deleted since the last update, written by a
                      trigger on ``messages``: a log read again from its start deletes its
                      messages, and their ids may be given to the new ones (``INTEGER PRIMARY
                      KEY`` reuses the largest). The update drops their codes and embeds again
                      whatever holds those ids now.
- ``meta``            ``meaning_model`` (the codes' model: another model's are rebuilt, never
                      mixed), ``meaning_through`` (every message id up to it has been seen) and
                      ``meaning_serial`` (one more on every change: a search's cache of the codes
                      is read again when it moves).
"""

from __future__ import annotations

import sqlite3

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.vectors.codes import EMBEDDED_WHERE

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    import numpy as np

BLOCK_BITS = 12  # 4,096 ids a block: about half are messages with a vector

# One statement each: ``executescript`` would commit the transaction they are run in.
TABLES = (
    "CREATE TABLE IF NOT EXISTS main.meaning_blocks (block INTEGER PRIMARY KEY, ids BLOB NOT NULL, codes BLOB NOT NULL)",
    "CREATE TABLE IF NOT EXISTS main.meaning_gone (id INTEGER NOT NULL)",
    "CREATE TRIGGER IF NOT EXISTS main.meaning_forget AFTER DELETE ON messages"
    f" WHEN old.{EMBEDDED_WHERE.replace(' AND ', ' AND old.')}"
    " BEGIN INSERT INTO meaning_gone (id) VALUES (old.id); END",
)
DROP = (
    "DROP TRIGGER IF EXISTS main.meaning_forget",
    "DROP TABLE IF EXISTS main.meaning_gone",
    "DROP TABLE IF EXISTS main.meaning_blocks",
    "DELETE FROM main.meta WHERE key IN ('meaning_model', 'meaning_through', 'meaning_serial')",
)


class VectorsDamaged(ValueError, ThreadbackError):
    """A block whose ids and codes do not fit together."""
    kind = errors.INDEX


def has_tables(conn: sqlite3.Connection) -> bool:
    names = {r[0] for r in conn.execute(
        "SELECT name FROM main.sqlite_master WHERE name IN ('meaning_blocks', 'meaning_gone', 'meaning_forget')")}
    return len(names) == 3


def meta_value(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM main.meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT INTO main.meta (key, value) VALUES (?, ?)"
                 " ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))


def holds_codes_of(conn: sqlite3.Connection, model: str) -> bool:
    """Whether the tables are all there and their codes are ``model``'s."""
    return has_tables(conn) and meta_value(conn, "meaning_model") == model


def embedded_through(conn: sqlite3.Connection) -> int:
    """``meaning_through``: every message up to this id has its code, or needs none (0: unset)."""
    return int(meta_value(conn, "meaning_through") or 0)


def ensure(conn: sqlite3.Connection, model: str) -> int:
    """Create the tables (and start over when they hold another model's codes, or when the
    trigger was missing, so deletions may have gone unlogged). Returns ``meaning_through``."""
    if not holds_codes_of(conn, model):
        for statement in DROP + TABLES:
            conn.execute(statement)
        set_meta(conn, "meaning_model", model)
        set_meta(conn, "meaning_through", "0")
    return embedded_through(conn)


def drop(conn: sqlite3.Connection) -> bool:
    """Remove the tables and the trigger (meaning turned off). True when there was something."""
    if not has_tables(conn) and meta_value(conn, "meaning_model") is None:
        return False
    for statement in DROP:
        conn.execute(statement)
    return True


def check(conn: sqlite3.Connection) -> None:
    """Raise ``VectorsDamaged`` when a block's ids and codes do not fit together: an odd or empty
    id list, or codes not as many bytes a vector as in every other block. Reads no blob (SQLite
    takes a blob's length from its header)."""
    if not has_tables(conn):
        return
    odd = conn.execute("SELECT block FROM main.meaning_blocks WHERE length(ids) % 2 OR length(ids) = 0"
                       " OR (length(codes) * 2) % length(ids) LIMIT 1").fetchone()
    widths = conn.execute("SELECT DISTINCT length(codes) * 2 / length(ids) FROM main.meaning_blocks"
                          " WHERE length(ids) > 0 LIMIT 2").fetchall()
    if odd or len(widths) > 1:
        where = f"block {odd[0]}" if odd else "blocks of different widths"
        raise VectorsDamaged(f"{where}: its ids and codes do not fit together")


def read_block(conn: sqlite3.Connection, block: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    row = conn.execute("SELECT ids, codes FROM main.meaning_blocks WHERE block = ?", (block,)).fetchone()
    if row is None:
        return np.zeros(0, np.uint16), np.zeros((0, width), np.uint8)
    return _decode(block, row[0], row[1], width)


def _decode(block: int, ids: bytes, codes: bytes, width: int) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    offsets = np.frombuffer(ids, dtype="<u2")
    if len(codes) != len(offsets) * width:
        raise VectorsDamaged(f"block {block}: {len(offsets)} ids but {len(codes)} bytes of codes")
    return offsets, np.frombuffer(codes, dtype=np.uint8).reshape(len(offsets), width)


def write_block(conn: sqlite3.Connection, block: int, offsets: np.ndarray, codes: np.ndarray) -> None:
    if not len(offsets):
        conn.execute("DELETE FROM main.meaning_blocks WHERE block = ?", (block,))
        return
    conn.execute("INSERT OR REPLACE INTO main.meaning_blocks (block, ids, codes) VALUES (?, ?, ?)",
                 (block, offsets.astype("<u2").tobytes(), codes.tobytes()))


def read_all(conn: sqlite3.Connection, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (message id, code), by id. Raises ``VectorsDamaged`` for a block that does not fit."""
    import numpy as np

    ids, codes = [], []
    for block, raw_ids, raw_codes in conn.execute("SELECT block, ids, codes FROM main.meaning_blocks ORDER BY block"):
        offsets, block_codes = _decode(block, raw_ids, raw_codes, width)
        ids.append(offsets.astype(np.int64) + (block << BLOCK_BITS))
        codes.append(block_codes)
    if not ids:
        return np.zeros(0, np.int64), np.zeros((0, width), np.uint8)
    return np.concatenate(ids), np.concatenate(codes)

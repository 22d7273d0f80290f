"""The zstd dictionaries packed tool output is compressed with, kept in the index itself.

Each index trains its own from its first tool outputs (``indexer.upkeep.pack_training``):
measured on the generated 1 GB tree, a dictionary trained on the index's own first 2,000
outputs packs the rest 2.76x, where one trained on other people's logs (the reference corpus)
packed them 1.72x, worse than zstd without one (1.84x) or zlib-1 (2.00x). Tool output is
mostly the user's own code and files, which no shipped dictionary knows.

A dictionary is never deleted or changed: every zstd blob names its dictionary's id and
needs it to be read (``indexer.store.packing``).
"""

from __future__ import annotations

import secrets
import sqlite3
from dataclasses import dataclass

DICTIONARY_BYTES = 112 * 1024  # zstd's default size; 64 KB packed 4% worse
# zstd reserves ids below 32768 and from 2**31 on; ids are random so that two indexes open in
# one process (the app, the tests) cannot name each other's dictionary.
_ID_LOW, _ID_HIGH = 32768, 2**31 - 1


@dataclass(frozen=True)
class PackDictionary:
    id: int
    data: bytes


def load_dictionary(conn: sqlite3.Connection, dictionary_id: int) -> bytes | None:
    """A dictionary's bytes, or None when the index lacks it (or is too old to hold any)."""
    try:
        row = conn.execute("SELECT data FROM main.pack_dictionaries WHERE id = ?", (dictionary_id,)).fetchone()
    except sqlite3.Error:
        return None
    return bytes(row[0]) if row else None


def newest_dictionary(conn: sqlite3.Connection) -> PackDictionary | None:
    """The dictionary new packs use: the newest the index holds."""
    row = conn.execute("SELECT id, data FROM main.pack_dictionaries ORDER BY trained_at DESC, rowid DESC LIMIT 1").fetchone()
    return PackDictionary(row[0], bytes(row[1])) if row else None


def train_dictionary(samples: list[bytes]) -> PackDictionary | None:
    """A dictionary trained on ``samples``, or None when they are too few or too alike to
    train one (zstd says so by failing)."""
    import zstandard

    dictionary_id = _ID_LOW + secrets.randbelow(_ID_HIGH - _ID_LOW)
    try:
        buffers: list[bytes | bytearray | memoryview] = list(samples)  # its list parameter is invariant
        trained = zstandard.train_dictionary(DICTIONARY_BYTES, buffers, dict_id=dictionary_id, level=3)
    except (zstandard.ZstdError, ValueError, MemoryError):
        return None
    return PackDictionary(trained.dict_id(), trained.as_bytes())


def save_dictionary(conn: sqlite3.Connection, dictionary: PackDictionary, now: float) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO main.pack_dictionaries(id, data, trained_at) VALUES (?, ?, ?)",
        (dictionary.id, dictionary.data, now),
    )

"""Each stored message's dedup key and the message that holds it: how an index run finds a copy
of a message another log holds already (a resumed or forked session, a log moved elsewhere).

Why a table of its own, written in key order just before each commit: the keys are 64-bit
digests, so they arrive in random order. Kept as the UNIQUE column ``messages.dedup`` (the layout
before), each new message changed a random page of that column's index, and with the page cache
full of the build's new pages nearly every such change was written out again: building the
generated 1 GB tree, the main process wrote 16.6 GB, 5.4 GB without that index and 6.5 GB with
this table (a real-format 3 GB tree: 39 GB, 22.9 GB with this table).
Here a run's new keys wait in memory until the commit (``DedupKeys``) and go in sorted, so each
page of the table changes once a commit.

``messages.dedup`` still holds each key (what ``kept_rows`` and ``refer_outputs`` read by
file). An index made before this keeps that column UNIQUE (SQLite cannot drop the constraint in
place), so its runs pay both; ``threadback index --rebuild`` makes the new layout. Its table is
filled from the column once, by its next index run (``ensure_table``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from indexer.store.schema import DEDUP_KEYS_TABLE  # a new index's; made here in an older one

_CHUNK = 500  # keys a lookup statement names (SQLite's variable limit is far above)
# A first build's filter of the keys it stored (``DedupKeys.start_filter``): a bit for every 64
# bytes to read (~20 a message: ~1,300 bytes of log a message in the generated tree, ~1,900 in
# real ones), at most 1 MB. It is dropped once it holds a key for every ``FILTER_BITS_A_KEY`` bits
# (~840,000 keys at 1 MB): fuller, more than ~3% of the keys not stored would pass it and be
# looked up anyway, and it would cost more than it saves. A bigger build looks up the rest.
FILTER_LOG_BYTES_A_BIT = 64
FILTER_MIN_BITS, FILTER_MAX_BITS = 1 << 16, 1 << 23
FILTER_BITS_A_KEY = 10


def ensure_table(conn: sqlite3.Connection) -> None:
    """Make the table, filled from ``messages.dedup``, on an index made before it. Call inside
    the run's write transaction (with the index lock held)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dedup_keys'").fetchone():
        return
    conn.execute(DEDUP_KEYS_TABLE)
    # The old layout's UNIQUE column has an index: read in its order, the table fills in order.
    conn.execute("INSERT OR REPLACE INTO dedup_keys(key, id) SELECT dedup, id FROM messages"
                 " WHERE dedup IS NOT NULL ORDER BY dedup")


class DedupKeys:
    """The keys a run has stored since its last commit, in memory, over the table's.

    A file's keys are held apart until its savepoint is released (``keep_file``): a file rolled
    back (``drop_file``) leaves none behind."""

    def __init__(self) -> None:
        self._pending: dict[int, int] = {}  # key -> message id, stored since the last flush
        self._file: dict[int, int] = {}  # the same for the file being stored
        self._taken: dict[int, int] = {}  # waiting keys of rows the file being stored removed
        self._filter: bytearray | None = None  # every key of the table is in it, when kept
        self._filter_mask = 0
        self._filter_room = 0  # keys it may take before it is dropped

    def start_filter(self, conn: sqlite3.Connection, bytes_to_read: int) -> None:
        """Keep a Bloom filter of the keys this run stores when the table holds none yet (a first
        build, a rebuild): a key it does not hold is not stored, so its lookup is skipped. The keys
        are digests (random bits), so two slices of each are its two positions. Looking up every
        new message's key took 1.5 s of the main process's CPU in a build of the generated 1 GB
        tree (1.9 us a key, 796,000 keys)."""
        if conn.execute("SELECT 1 FROM dedup_keys LIMIT 1").fetchone() is not None:
            return
        bits = FILTER_MIN_BITS
        while bits < FILTER_MAX_BITS and bits * FILTER_LOG_BYTES_A_BIT < bytes_to_read:
            bits <<= 1
        self._filter, self._filter_mask, self._filter_room = bytearray(bits // 8), bits - 1, bits // FILTER_BITS_A_KEY

    def any_known(self, conn: sqlite3.Connection, keys: list[int]) -> bool:
        """Whether any of ``keys`` is stored already, or one repeats among them: the writer's
        one-statement path is for files whose every message is new."""
        if len(set(keys)) != len(keys):
            return True
        pending, file = self._pending, self._file
        if any(key in pending or key in file for key in keys):
            return True
        if self._filter is not None:
            keys = self._maybe_stored(keys)
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i:i + _CHUNK]
            if conn.execute(f"SELECT 1 FROM dedup_keys WHERE key IN ({','.join('?' * len(chunk))}) LIMIT 1",
                            chunk).fetchone():
                return True
        return False

    def owner_session(self, conn: sqlite3.Connection, key: int) -> int | None:
        """The session of the stored message holding ``key``; None when none does."""
        owner = self._file.get(key)
        if owner is None:
            owner = self._pending.get(key)
        if owner is None:
            row = conn.execute("SELECT id FROM dedup_keys WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            owner = row[0]
        held = conn.execute("SELECT session_rowid FROM messages WHERE id = ?", (owner,)).fetchone()
        return None if held is None else held[0]

    def add(self, key: int, message_id: int) -> None:
        self._file[key] = message_id

    def add_all(self, keys: list[int], first_id: int) -> None:
        """Keys of consecutive messages from ``first_id``."""
        self._file.update(zip(keys, range(first_id, first_id + len(keys))))

    def keep_file(self) -> None:
        self._pending.update(self._file)
        self._file, self._taken = {}, {}

    def drop_file(self) -> None:
        self._pending.update(self._taken)
        self._file, self._taken = {}, {}

    def _maybe_stored(self, keys: list[int]) -> list[int]:
        """The keys the filter holds (a few it holds are not stored: those are looked up)."""
        bits, mask = self._filter, self._filter_mask
        assert bits is not None
        out = []
        for key in keys:
            low, high = key & mask, (key >> 32) & mask
            if bits[low >> 3] & (1 << (low & 7)) and bits[high >> 3] & (1 << (high & 7)):
                out.append(key)
        return out

    def _into_filter(self, keys: Collection[int]) -> None:
        self._filter_room -= len(keys)
        if self._filter_room < 0:
            self._filter = None  # too full to skip enough lookups: every key is looked up again
            return
        bits, mask = self._filter, self._filter_mask
        assert bits is not None
        for key in keys:
            low, high = key & mask, (key >> 32) & mask
            bits[low >> 3] |= 1 << (low & 7)
            bits[high >> 3] |= 1 << (high & 7)

    def flush(self, conn: sqlite3.Connection) -> None:
        """Write the waiting keys, in key order: call before a commit."""
        if self._pending:
            if self._filter is not None:
                self._into_filter(self._pending.keys())
            # REPLACE: a key whose message went without its entry (an index from before this
            # table, rows removed by hand) is taken over, as the old UNIQUE column would have been.
            conn.executemany("INSERT OR REPLACE INTO dedup_keys(key, id) VALUES (?, ?)", sorted(self._pending.items()))
            self._pending = {}

    def drop_rows(self, conn: sqlite3.Connection, file_id: int, from_ordinal: int) -> None:
        """Forget the keys of a log's messages from ``from_ordinal`` on, before they are deleted.
        Inside the log's savepoint: what it takes from the waiting keys comes back if the log is
        rolled back (``drop_file``), as the table's rows do."""
        rows = conn.execute("SELECT dedup, id FROM messages WHERE file_id = ? AND ordinal >= ? AND dedup IS NOT NULL",
                            (file_id, from_ordinal)).fetchall()
        for key, message_id in rows:
            if self._pending.get(key) == message_id:
                self._taken[key] = self._pending.pop(key)
        conn.executemany("DELETE FROM dedup_keys WHERE key = ? AND id = ?", rows)

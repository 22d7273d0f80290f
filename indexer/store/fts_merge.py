"""Merging the full-text tables' segments, a bounded slice at a time, after an index run.

FTS5 writes each batch as a new segment and merges only when enough of them share a level
(``automerge``: four, and ``AUTOMERGE`` for the main trigram table, ``BULK_AUTOMERGE`` while a
build writes it). A cold build of the generated 1 GB tree once left the trigram table in 16
segments and the side file's tables in 8 to 13 (before a build merged at its end), and a query
reads each of its terms' lists once per segment: a filter that asks each of 300 sessions' id
ranges in turn pays that 300 times. Eight runs later (0.5 s of merging each) the trigram table
is in 3 and the newest-week filter takes 22 ms instead of 48 (session view 15 instead of 35);
every other class the same or up to 25% less, the index the same size
(``bench/speed/bench_merge.py``).

How: ``usermerge`` 2, then positive ``merge`` steps, which join segments that share a level and
nothing else. Negative steps (FTS5's incremental ``optimize``) would put every segment on one
level first, and a run that adds a segment between two of them starts that over: tried with one
small segment a run on the 1 GB index, the trigram table grew from 16 segments to 40 in twelve
runs and never finished, where positive steps took it to 4 in six. Each step writes about
``MERGE_PAGES`` pages in its own transaction (~30 ms here), so a run stops at its budget and
the next run goes on; a step that changes fewer than two rows found nothing left (the test the
FTS5 documentation gives). ``threadback index --compact``, which holds the lock until it is
done, merges each table into one segment with negative steps (4.8 s for the 1 GB index).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence

from indexer.store.side_file import SCHEMA_NAME

MERGE_PAGES = 500
USERMERGE = 2  # segments on one level that a positive ``merge`` step joins (FTS5's default: 4)
# How the trigram table's writers make segments (FTS5 keeps both settings in ``fts_config``, so
# every writer uses them; ``use_write_settings``). FTS5 holds new entries in memory up to its
# ``hashsize`` (default 1 MB), then writes them as a segment: a build's commit wrote several small
# ones. Its ``automerge`` (default 4) merges a level's segments once that many are on it, so each
# entry was written again at every level. With 16 MB and 16, a commit writes about one segment and
# a level waits for 16 before FTS5 merges it: the generated 1 GB tree's build took 68.7-69.8 s of CPU
# instead of 78.2-78.5 with search by meaning off, 77.4-77.7 instead of 81.9-84.3 with it
# (docs/performance.md, round 26), the main process's peak 100-101 MB (with ``WRITER_CACHE_KIB``
# cut to 32 MB) instead of 102-103. The buffer fills only as far as a run writes between commits:
# a hook's small run holds what it wrote, no more. Segments are merged after runs (``merge_segments``).
PENDING_BYTES = 16 * 1024 * 1024
AUTOMERGE = 16
# A build (a run reading ``BULK_BYTES`` or more) lets a level gather ``BULK_AUTOMERGE`` segments
# before FTS5 merges it, and merges what it wrote once at its end (``indexer.ingest.run``): at 16,
# the generated 1 GB tree's ~50 commits were merged into three segments while it was read and all
# of it again at the end, each entry written three times; now twice. Its build without its end
# merge took 62.0 s of CPU instead of 66.6 (search by meaning off), merging the whole table into
# one segment then 4.0 s instead of 3.6. ``crisismerge`` (FTS5's default 16: a level that holds
# that many is merged at once, in the commit that made it) is as high, so that a run after a
# build stopped part way merges what the build left a slice at a time rather than all in its commit.
BULK_BYTES = 32 * 1024 * 1024
BULK_AUTOMERGE = 64


def merge_segments(conn: sqlite3.Connection, tables: Sequence[str], *, seconds: float | None,
                   optimize: bool = False, should_stop: Callable[[], bool] | None = None, enough: int = 0) -> bool:
    """Merge ``tables`` (``schema.name``) until nothing is left, or each is in ``enough``
    segments or fewer (True), ``seconds`` have passed or ``should_stop`` says so (False).
    ``seconds`` None: no limit. ``optimize``: down to one segment a table. ``conn`` must be in
    autocommit mode, outside a transaction."""
    deadline = None if seconds is None else time.monotonic() + seconds
    pages = -MERGE_PAGES if optimize else MERGE_PAGES
    for table in tables:
        schema, name = table.split(".")
        if not optimize:
            _use_setting(conn, schema, name, "usermerge", USERMERGE)
        while not (enough and segment_count(conn, table) <= enough):
            if (deadline is not None and time.monotonic() >= deadline) or (should_stop and should_stop()):
                return False
            before = conn.total_changes
            conn.execute(f"INSERT INTO {schema}.{name}({name}, rank) VALUES ('merge', ?)", (pages,))
            if conn.total_changes - before < 2:
                break
    return True


# A table this small (leaf pages) is joined into one segment at a build's end, in one statement:
# ~1 s here. The real-format 1 GB tree's build left the side file's trigram table in 2 segments,
# and `agent:codex error`, which asks each of ~140 session ranges of it, took 30.3 ms where it
# took 20.5 with that table, the word index and the bigrams each in one (0.23 s of CPU). The main
# trigram table of a 1 GB index is ~60,000 pages: merged in slices (``merge_segments``), never this way.
JOIN_PAGES_AT_MOST = 20_000


def join_small_tables(conn: sqlite3.Connection, tables: Sequence[str], deadline: float,
                      should_stop: Callable[[], bool] | None = None) -> None:
    """Join each of ``tables`` in more than one segment and at most ``JOIN_PAGES_AT_MOST`` leaf
    pages into one (FTS5's ``optimize``: done when it returns, nothing left part way), smallest
    first, until ``deadline`` (``time.monotonic``). ``conn`` in autocommit mode."""
    structures = {table: table_structure(conn, table) for table in tables}
    for table in sorted(tables, key=lambda t: structures[t][1]):
        segments, pages = structures[table]
        if segments <= 1 or pages > JOIN_PAGES_AT_MOST:
            continue
        if time.monotonic() >= deadline or (should_stop and should_stop()):
            return
        schema, name = table.split(".")
        conn.execute(f"INSERT INTO {schema}.{name}({name}) VALUES ('optimize')")


def use_write_settings(conn: sqlite3.Connection, bytes_to_read: int, table: str = "fts") -> None:
    """Give the main file's ``table`` the ``PENDING_BYTES`` buffer and ``AUTOMERGE``, or
    ``BULK_AUTOMERGE`` for a run that reads ``BULK_BYTES`` or more: an index made before gets
    them from its next run. Call inside the run's write transaction."""
    _use_setting(conn, "main", table, "hashsize", PENDING_BYTES)
    _use_setting(conn, "main", table, "automerge", BULK_AUTOMERGE if bytes_to_read >= BULK_BYTES else AUTOMERGE)
    _use_setting(conn, "main", table, "crisismerge", BULK_AUTOMERGE)


def index_tables(conn: sqlite3.Connection) -> list[str]:
    """Every FTS5 table of an index connection: the main file's, then the side file's."""
    return fts5_tables(conn) + fts5_tables(conn, SCHEMA_NAME)


def fts5_tables(conn: sqlite3.Connection, schema: str = "main") -> list[str]:
    """Every FTS5 table of ``schema``, as ``schema.name``."""
    rows = conn.execute(f"SELECT name, sql FROM {schema}.sqlite_master WHERE type = 'table'").fetchall()
    return [f"{schema}.{name}" for name, sql in rows if sql and "USING FTS5" in sql.upper()]


def segment_count(conn: sqlite3.Connection, table: str) -> int:
    """How many segments ``table`` (``schema.name``) is in."""
    return table_structure(conn, table)[0]


def table_structure(conn: sqlite3.Connection, table: str) -> tuple[int, int]:
    """The segments and leaf pages in ``table``'s structure record (``%_data`` row 10, FTS5's
    file format, ``fts5StructureRead`` in ``fts5_index.c``): a 4-byte cookie, an optional
    4-byte version marker, the number of levels and of segments, a write counter, then per
    level its merge count and segments, each with its id, first and last page (and with the
    marker, five more numbers). The leaf pages are the table's size from one small read
    (counting its ``%_data`` rows walks the whole b-tree, 0.2 s for an unmerged 1 GB index)."""
    schema, name = table.split(".")
    row = conn.execute(f"SELECT block FROM {schema}.{name}_data WHERE id = 10").fetchone()
    if row is None:
        return 0, 0
    data, pos = bytes(row[0]), 4
    v2 = data[4:8] == b"\xff\x00\x00\x01"  # FTS5_STRUCTURE_V2
    if v2:
        pos = 8
    levels, pos = _varint(data, pos)
    segments, pos = _varint(data, pos)
    _writes, pos = _varint(data, pos)
    pages = 0
    for _ in range(levels):
        _merging, pos = _varint(data, pos)
        in_level, pos = _varint(data, pos)
        for _ in range(in_level):
            _segid, pos = _varint(data, pos)
            first, pos = _varint(data, pos)
            last, pos = _varint(data, pos)
            pages += last - first + 1
            for _ in range(5 if v2 else 0):
                _, pos = _varint(data, pos)
    return segments, pages


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """SQLite's variable-length integer at ``pos``: its value and where the next one starts."""
    value = 0
    for i in range(8):
        byte = data[pos + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, pos + i + 1
    return (value << 8) | data[pos + 8], pos + 9


def _use_setting(conn: sqlite3.Connection, schema: str, name: str, key: str, value: int) -> None:
    """Set one of FTS5's kept settings on ``schema.name``, unless it holds ``value`` already
    (setting it is a write, which a run that found nothing new should not pay)."""
    row = conn.execute(f"SELECT v FROM {schema}.{name}_config WHERE k = ?", (key,)).fetchone()
    if row is None or row[0] != value:
        conn.execute(f"INSERT INTO {schema}.{name}({name}, rank) VALUES (?, ?)", (key, value))

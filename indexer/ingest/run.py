"""An index run as the ``Index`` facade starts it: under the index lock, surviving a helper
process that dies and a damaged side file."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Callable

from indexer.config import SourceRoots
from indexer.ingest.helper import HelperError
from indexer.ingest.lock import IndexLock
from indexer.ingest.progress import IndexSummary, ProgressCallback
from indexer.ingest.words_backfill import backfill_words
from indexer.ingest.writer import Ingester
from indexer.store.errors import IndexCorruptError
from indexer.store.fts_merge import index_tables, merge_segments
from indexer.store.health import damage_marker, quick_check, side_damage_marker
from indexer.store.side_file import replace_side, side_path

# 128 MB of page cache put the writer at 172 MB resident; at 64 MB it peaks at 113 MB (bench/bench_memory.py)
# and paired runs (bench_index.py, noisy) showed no slower build.
WRITER_CACHE_KIB = 64 * 1024
MERGE_SECONDS = 0.5  # what a run may spend merging the full-text tables' segments (indexer.store.fts_merge)
BULK_BYTES = 32 * 1024 * 1024  # a run that read more (a build) leaves the merging to the runs after it


def update_index(
    conn: sqlite3.Connection,
    db_path: Path,
    roots: SourceRoots,
    *,
    progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
    now: float | None = None,
    only: list[str] | None = None,
    archive_dir: Path | None = None,
) -> IndexSummary:
    """Bring the index up to date with the logs under ``roots`` (one writer at a time).

    A helper process that dies costs its uncommitted batch, which the run then reads again in
    one process; a side file found damaged (by this run, or a search before it) is rebuilt
    from the main file and the run goes on."""
    with IndexLock(db_path):
        # The dedup index takes random keys: a bigger page cache saves ~20% of a cold build.
        conn.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
        notes: list[str] = []
        _check_if_found_damaged(db_path)
        marker = side_damage_marker(db_path)
        if marker.exists():
            replace_side(conn, db_path)
            marker.unlink(missing_ok=True)
            notes.append(f"the side index beside {db_path} was found damaged; it has been rebuilt")
        for attempt in range(3):
            try:
                one_process = any("helper" in note for note in notes)
                summary = Ingester(conn, db_path, now=now, one_process=one_process,
                                   archive_dir=archive_dir).run(roots, progress, should_stop, only)
                summary.problems[:0] = notes
                if only is None and not summary.stopped:
                    backfill_words(conn, should_stop)  # messages stored before the word index
                    from indexer.vectors.build import update_meaning  # search by meaning: its vectors

                    summary.problems += update_meaning(conn, should_stop)
                    _merge_a_slice(conn, summary, should_stop)
                return summary
            except HelperError as exc:
                first = str(exc).splitlines()[0]
                notes.append(f"{first}; the run went on in one process")
                _rebuild_side_if_damaged(conn, db_path)
            except sqlite3.DatabaseError:
                if attempt or not _rebuild_side_if_damaged(conn, db_path):
                    raise
                notes.append(f"the side index beside {db_path} was damaged and has been rebuilt")
        raise HelperError("the index run could not finish after its helper process failed twice")


def _merge_a_slice(conn: sqlite3.Connection, summary: IndexSummary, should_stop: Callable[[], bool] | None) -> None:
    """Merge segments for up to ``MERGE_SECONDS`` after a run that read little: a cold build
    costs what it did, and the runs after it (a hook's refresh, the app's) merge what it left."""
    if summary.bytes_read >= BULK_BYTES:
        return
    started = time.monotonic()
    try:
        summary.segments_left = not merge_segments(conn, index_tables(conn), seconds=MERGE_SECONDS,
                                                   should_stop=should_stop)
    except sqlite3.OperationalError:
        pass  # a full disk, a busy file: what the run read is stored, and the next run merges
    summary.seconds += time.monotonic() - started


def merge_while_idle(conn: sqlite3.Connection, db_path: Path, *, seconds: float,
                     should_stop: Callable[[], bool] | None = None) -> bool:
    """Merge segments for up to ``seconds`` under the run's lock, between runs (the app, idle
    after a build left them): True when nothing is left to merge. Raises ``IndexBusyError``
    while a run holds the lock."""
    with IndexLock(db_path):
        return merge_segments(conn, index_tables(conn), seconds=seconds, should_stop=should_stop)


def _check_if_found_damaged(db_path: Path) -> None:
    """A search found the main file damaged: check it now, and stop with the rebuild hint if so."""
    marker = damage_marker(db_path)
    if not marker.exists():
        return
    damage = quick_check(db_path)
    if damage is not None:
        raise IndexCorruptError(db_path, damage)
    marker.unlink(missing_ok=True)


def _rebuild_side_if_damaged(conn: sqlite3.Connection, db_path: Path) -> bool:
    """Swap a damaged side file for an empty one (the next run's ``ensure_paired`` refills it).
    True when it was damaged."""
    side = side_path(db_path)
    if not side.exists() or quick_check(side) is None:
        return False
    replace_side(conn, db_path)
    return True

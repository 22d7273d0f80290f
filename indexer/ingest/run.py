"""An index run as the ``Index`` facade starts it: under the index lock, surviving a helper
process that dies and a damaged side file."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from indexer.config import SourceRoots
from indexer.ingest.lock import IndexLock
from indexer.ingest.progress import IndexProgress, IndexSummary, ProgressCallback
from indexer.upkeep.excerpts_backfill import backfill_excerpts
from indexer.upkeep.words_backfill import backfill_words
from indexer.ingest.writer import Ingester
from indexer.store.errors import HelperError, IndexCorruptError
from indexer.store.fts_merge import BULK_BYTES, index_tables, join_small_tables, merge_segments, table_structure
from indexer.store.health import damage_marker, quick_check, side_damage_marker
from indexer.store.side_file import replace_side, side_path

if TYPE_CHECKING:
    from indexer.vectors.follow import EmbeddingAlongside

# 128 MB of page cache put the writer at 172 MB resident, 64 MB at 113 MB on the generated 1 GB
# tree but 122 MB on the 2.9 GB real-format one; at 48 MB that build's main process peaked at 107
# MB in the same 106 s (bench/speed/bench_memory.py; issue 38's target: under 120 MB a process).
# 32 MB since the trigram table's write buffer grew to 16 MB (indexer.store.fts_merge): the
# generated 1 GB tree's build as fast as with 48 MB, its main process at 100-101 MB.
WRITER_CACHE_KIB = 32 * 1024
# Merging (indexer.store.fts_merge) is paid only by a run that wrote, in proportion to what it
# read, and only while a table is in more segments than a merged one keeps: a run that found
# nothing to do merges nothing (it cost ~0.5 s of every such run on a 1 GB index before).
MERGE_SECONDS = 0.5  # the most a run may spend merging
MERGE_SECONDS_PER_MB = 0.02  # of log bytes read: a run that read 25 MB may spend the most
MERGE_STEP_SECONDS = 0.03  # and at least one step's worth (500 pages, ~30 ms here)
# Log bytes read by writing runs since the last merge that earn one: the small appends of a
# hook's runs add up to it, and only the run that reaches it pays (an append of 10 lines to 5
# logs on the 1 GB index cost 200 ms with a step, ~100 ms more than a no-change run).
MERGE_AFTER_BYTES = 2 * 1024 * 1024
MERGE_CREDIT_KEY = "merge_credit_bytes"
MERGED_SEGMENTS = 3  # a table in this many segments or fewer is left alone
# A build left the tables in 10 to 13 segments each, and every search reads each term's list once
# a segment. On the 1 GB real-format tree, a build that merges for this share (4-5 s of 58 s; its
# tables left in 2 to 4 segments) is searched faster than one that does not: `agent:codex error`
# 105 -> 48 ms, the session view of `grep -rn timeout src/` 75 -> 57 ms, of `database locked
# retry` 83 -> 65 ms; common words the same. The app used to merge while idle, so a build
# searched from the command line or by an agent stayed slow until then. It stops at
# ``MERGED_SEGMENTS`` a table (it used to go on while two shared a level and its time lasted).
# 0.08 until round 26: a build that writes bigger segments (indexer.store.fts_merge) is quicker,
# so 8% of it left the real-format tree's trigram table in 5 segments where it was 4
# (`agent:codex error` 38 -> 48 ms; the rest of its merging took 0.65 s of CPU). 0.12 until
# round 27: a build now leaves its segments to this merge (``BULK_AUTOMERGE``), which joins
# them all at once and has the table in fewer segments only when it is done: ~4 s of the
# generated 1 GB tree's ~43 s build, where 12% left it in 5 segments. A ceiling, not a cost:
# it stops at ``MERGED_SEGMENTS``.
BULK_MERGE_SHARE = 0.2  # of the build's own time, at most


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
        conn.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
        notes: list[str] = []
        _check_if_found_damaged(db_path)
        marker = side_damage_marker(db_path)
        if marker.exists():
            replace_side(conn, db_path)
            marker.unlink(missing_ok=True)
            notes.append(f"the side index beside {db_path} was found damaged; it has been rebuilt")
        seen = _LastProgress(progress)
        for attempt in range(3):
            embedding: list[EmbeddingAlongside] = []  # embedding while the logs are read, on a big run

            def embed_alongside(bytes_to_read: int) -> None:
                from indexer.vectors.follow import start_alongside  # subprocess: loaded for a run that reads

                if (started := start_alongside(db_path, bytes_to_read)) is not None:
                    embedding.append(started)

            try:
                one_process = any("helper" in note for note in notes)
                summary = Ingester(conn, db_path, now=now, one_process=one_process, archive_dir=archive_dir,
                                   alongside=None if one_process else embed_alongside,
                                   ).run(roots, seen if progress else None, should_stop, only)
                summary.problems[:0] = notes
                if only is None and not summary.stopped:
                    backfill_words(conn, should_stop)  # messages stored before the word index
                    backfill_excerpts(conn, should_stop)  # tool output stored before it was searchable
                    from indexer.vectors.build import update_meaning  # search by meaning: its vectors

                    seen.step("search by meaning")
                    for process in embedding:
                        summary.problems += process.finish(should_stop)
                    summary.problems += update_meaning(conn, should_stop, None if one_process else str(db_path))
                    seen.step("merging the index")
                    _merge_a_slice(conn, summary, should_stop)
                    seen.step("")
                return summary
            except HelperError as exc:
                first = str(exc).splitlines()[0]
                notes.append(f"{first}; the run went on in one process")
                _rebuild_side_if_damaged(conn, db_path)
            except sqlite3.DatabaseError:
                if attempt or not _rebuild_side_if_damaged(conn, db_path):
                    raise
                notes.append(f"the side index beside {db_path} was damaged and has been rebuilt")
            finally:
                for process in embedding:
                    process.stop()  # finished already, or the run failed or was stopped
        raise HelperError("the index run could not finish after its helper process failed twice")


class _LastProgress:
    """The run's progress callback, remembering what it was last told, so the steps after the
    logs are read (a long build's embedding and merging) are told on the same line."""

    def __init__(self, progress: ProgressCallback | None):
        self.progress = progress
        self.last: IndexProgress | None = None

    def __call__(self, prog: IndexProgress) -> None:
        self.last = prog
        if self.progress:
            self.progress(prog)

    def step(self, step: str) -> None:
        if self.progress and self.last is not None and self.last.step != step:
            self.last.step = step
            self.progress(self.last)


def _merge_a_slice(conn: sqlite3.Connection, summary: IndexSummary, should_stop: Callable[[], bool] | None) -> None:
    """Merge the tables left in many segments for a time in proportion to what the writing runs
    read since the last merge, once that is ``MERGE_AFTER_BYTES``; a build (``BULK_BYTES``) for
    a share of its own time. A run that found nothing to do costs nothing, and the app merges
    what is left while idle (``segments_left``)."""
    started = time.monotonic()
    try:
        crowded = crowded_tables(conn)
        if summary.files_changed > 0 and summary.bytes_read >= BULK_BYTES:
            seconds = BULK_MERGE_SHARE * summary.seconds
            if crowded and seconds > 0:
                merge_segments(conn, crowded, seconds=seconds, should_stop=should_stop, enough=MERGED_SEGMENTS)
                crowded = crowded_tables(conn)
            if not crowded:
                join_small_tables(conn, index_tables(conn), started + seconds, should_stop)
            _set_merge_credit(conn, 0)
        elif summary.files_changed > 0:
            credit = _merge_credit(conn) + summary.bytes_read
            if crowded and credit >= MERGE_AFTER_BYTES:
                seconds = min(MERGE_SECONDS, max(MERGE_STEP_SECONDS, MERGE_SECONDS_PER_MB * credit / 1e6))
                merge_segments(conn, crowded, seconds=seconds, should_stop=should_stop)
                crowded, credit = crowded_tables(conn), 0
            _set_merge_credit(conn, credit)
        summary.segments_left = bool(crowded)
    except sqlite3.OperationalError:
        pass  # a full disk, a busy file: what the run read is stored, and the next run merges
    summary.seconds += time.monotonic() - started


def _merge_credit(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (MERGE_CREDIT_KEY,)).fetchone()
    return int(row[0]) if row and str(row[0]).isdigit() else 0


def _set_merge_credit(conn: sqlite3.Connection, credit: int) -> None:
    conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                 (MERGE_CREDIT_KEY, str(credit)))


def crowded_tables(conn: sqlite3.Connection) -> list[str]:
    """The full-text tables in more than ``MERGED_SEGMENTS`` segments, the smallest first: a
    budget that runs out in the trigram table, which takes most of it (5.8 s of 6.3 at 1 GB),
    has merged the rest, where most segments first once left a build's bigram and side
    trigram tables in 11 and 8 (``agent:codex error`` asks each of ~140 session ranges of
    both trigram tables: 48 -> 60 ms). One small read of each table's structure record."""
    structures = {t: table_structure(conn, t) for t in index_tables(conn)}  # (segments, leaf pages)
    crowded = [t for t, (segments, _) in structures.items() if segments > MERGED_SEGMENTS]
    return sorted(crowded, key=lambda t: structures[t][1])


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

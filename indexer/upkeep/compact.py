"""``threadback index --compact``: rewrite an index with 16 KB pages, no free space, each
full-text table in one segment (``indexer.store.fts_merge``) and, where the archive is on, packed
tool output replaced by references into the archived logs (``indexer.upkeep.refer_outputs``).

New index files get 16 KB pages (``indexer.store.connection.PAGE_SIZE``); an older file keeps
its 4 KB pages, whose unused bytes were ~100 MB of a 1 GB tree's 926 MB index, until it is
compacted: SQLite's VACUUM, which is transactional (a full disk or a crash leaves the index
as it was), taken under the index run's lock so no run writes meanwhile. A page size only
changes outside WAL, so each file is switched to a rollback journal for the VACUUM and back.

On a big history this runs for minutes to an hour, so ``compact_index`` tells an optional
``progress`` callable each step as it starts (``CompactStep``); how to show it is the caller's.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from indexer.ingest.lock import IndexLock
from indexer.store.connection import PAGE_SIZE, file_uri
from indexer.store.errors import IndexFullError, IndexLockedError, IndexReadOnlyError, IndexUnavailableError
from indexer.store.fts_merge import fts5_tables, merge_segments
from indexer.store.health import diagnose, is_read_only_place
from indexer.store.side_file import side_path

WAIT_FOR_READERS_MS = 2000  # a search that holds the file briefly is waited for, an open app is not


REFER, MERGE, VACUUM = "refer", "merge", "vacuum"  # the phases, in the order they run


@dataclass(frozen=True)
class CompactStep:
    """Where a compaction is, for a progress display. ``REFER``: packed tool output replaced log
    by log, ``done`` of ``total`` logs (once at 0, then after each log). ``MERGE``: full-text
    ``table`` of ``file`` starts merging, ``done`` of its ``total`` tables merged before it.
    ``VACUUM``: ``file`` (``size`` bytes) starts its VACUUM, which has no count to give."""

    phase: str
    done: int = 0
    total: int = 0
    file: Path | None = None
    table: str = ""
    size: int = 0


CompactProgress = Callable[[CompactStep], None]


@dataclass(frozen=True)
class FileCompaction:
    path: Path
    bytes_before: int
    bytes_after: int
    page_size_before: int
    page_size_after: int


@dataclass(frozen=True)
class Compaction:
    files: tuple[FileCompaction, ...]
    outputs_referred: int = 0  # packed tool output replaced by references into the archive
    arguments_referred: int = 0  # packed tool-call arguments, the same

    @property
    def bytes_before(self) -> int:
        return sum(f.bytes_before for f in self.files)

    @property
    def bytes_after(self) -> int:
        return sum(f.bytes_after for f in self.files)


class CompactBusyError(IndexLockedError):
    """Another connection has the file open: its page size cannot change under it."""

    def __init__(self, path: Path):
        RuntimeError.__init__(self, f"the index at {path} is open in another program (the Threadback app, "
                                    "a search, a database browser); nothing was changed: close it and try again")


class CompactSpaceError(IndexFullError):
    """Too little free disk to compact: nothing was changed."""

    def __init__(self, path: Path, detail: str):
        RuntimeError.__init__(self, f"not enough free disk to compact the index at {path} ({detail}); "
                                    "nothing was changed: free some space and try again")


def compact_index(db_path: Path, *, page_size: int = PAGE_SIZE, check_space: bool = True,
                  progress: CompactProgress | None = None) -> Compaction:
    """VACUUM the index and its side file to ``page_size`` pages, under the index lock;
    ``progress`` is told each step (``CompactStep``), in this thread, so it should be quick."""
    db_path = Path(db_path)
    if not db_path.is_file():
        raise IndexUnavailableError(db_path, "there is no index there; `threadback index` builds one")
    if is_read_only_place(db_path):
        raise IndexReadOnlyError(db_path, "compacting rewrites it")
    files = [p for p in (db_path, side_path(db_path)) if p.is_file()]
    with IndexLock(db_path):
        if check_space:
            for path in files:
                _check_space(path)
        tell = progress or _ignore
        referred = _refer_packed_outputs(db_path, tell)
        return Compaction(tuple(_compact_file(path, page_size, tell) for path in files), *referred)


def _ignore(step: CompactStep) -> None:
    pass


def _refer_packed_outputs(db_path: Path, tell: CompactProgress) -> tuple[int, int]:
    """Packed tool output and tool-call arguments replaced by references into the archive, as a
    new build stores them (``indexer.upkeep.refer_outputs``), unless the archive is off; before
    the VACUUM, which then gives the space back."""
    from indexer.archive import archive_dir_for
    from indexer.config import archive_enabled
    from indexer.upkeep.refer_outputs import refer_packed_outputs

    archive_root = archive_dir_for(db_path)
    if not archive_enabled() or not archive_root.is_dir():
        return 0, 0
    conn = sqlite3.connect(file_uri(db_path), uri=True, timeout=WAIT_FOR_READERS_MS / 1000)
    try:
        return refer_packed_outputs(conn, archive_root,
                                    on_log=lambda done, total: tell(CompactStep(REFER, done, total)))
    except sqlite3.Error as exc:
        raise _told(db_path, exc) from exc
    finally:
        conn.close()


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(str(path) + "-wal")) if p.exists())


def sqlite_temp_dir() -> Path:
    """Where SQLite writes VACUUM's temporary copy on this system (its own search order)."""
    for candidate in (os.environ.get("SQLITE_TMPDIR"), os.environ.get("TMPDIR"), "/var/tmp", "/usr/tmp", "/tmp"):
        if candidate and os.path.isdir(candidate) and os.access(candidate, os.W_OK | os.X_OK):
            return Path(candidate)
    return Path(".")


def _check_space(path: Path) -> None:
    """VACUUM needs a temporary copy (in SQLite's temp folder) and a journal of the pages it
    overwrites (beside the file): each about the file's size."""
    size = _size(path)
    temp = sqlite_temp_dir()
    same_disk = os.stat(temp).st_dev == os.stat(path.parent).st_dev
    needs = {path.parent: 2 * size} if same_disk else {path.parent: size, temp: size}
    for folder, needed in needs.items():
        free = shutil.disk_usage(folder).free
        if free < needed:
            raise CompactSpaceError(path, f"needs about {needed / 1e6:,.0f} MB free in {folder}, "
                                          f"which has {free / 1e6:,.0f} MB")


def _compact_file(path: Path, page_size: int, tell: CompactProgress) -> FileCompaction:
    before = _size(path)
    conn = sqlite3.connect(file_uri(path), uri=True, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout = {WAIT_FOR_READERS_MS}")
        page_before = conn.execute("PRAGMA page_size").fetchone()[0]
        tables = fts5_tables(conn)
        for done, table in enumerate(tables):
            tell(CompactStep(MERGE, done, len(tables), path, table.split(".")[-1]))
            merge_segments(conn, [table], seconds=None, optimize=True)  # one segment a table
        mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
        if mode.lower() != "delete":
            raise CompactBusyError(path)  # another connection has it open: WAL stays
        try:
            conn.execute(f"PRAGMA page_size = {int(page_size)}")
            tell(CompactStep(VACUUM, file=path, size=_size(path)))
            conn.execute("VACUUM")
        finally:
            conn.execute("PRAGMA journal_mode = WAL")
        page_after = conn.execute("PRAGMA page_size").fetchone()[0]
    except sqlite3.Error as exc:
        raise _told(path, exc) from exc
    finally:
        conn.close()
    return FileCompaction(path, before, _size(path), page_before, page_after)


def _told(path: Path, exc: sqlite3.Error) -> Exception:
    text = str(exc).lower()
    if "full" in text:
        return CompactSpaceError(path, f"the disk filled while compacting: {exc}")
    if "locked" in text or "busy" in text:
        return CompactBusyError(path)
    return diagnose(path, exc)

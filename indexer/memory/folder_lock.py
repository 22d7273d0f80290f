"""One lock per memory folder, so writes from several processes (twelve agents adding a memory
at once, the app and a hook) happen one after another.

Each write takes it, re-reads its file under it (an entry someone else added meanwhile is kept),
applies its change and writes. An editor that does not take it is still caught: every write
refuses to replace a file that is not what it loaded (``indexer.util.fileio``).
"""

from __future__ import annotations

from pathlib import Path

from indexer.util.fileio import ChangedOnDiskError

TYPE_CHECKING = False
if TYPE_CHECKING:  # filelock is loaded by the first write (~14 ms): reading memory never locks
    from filelock import FileLock

LOCK_FILE = ".memory.lock"
WAIT_SECONDS = 30.0


class MemoryFolderBusyError(ChangedOnDiskError):
    """Another process held the memory folder's lock for longer than we wait."""

    def __init__(self, folder: Path):
        RuntimeError.__init__(
            self, f"another Threadback process has been writing to {folder} for {WAIT_SECONDS:.0f} s; try again"
        )
        self.path = folder


class FolderLock:
    """Re-entrant across one process's calls (a promote holds it while it adds an entry)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._lock: FileLock | None = None

    def __enter__(self) -> "FolderLock":
        from filelock import FileLock, Timeout

        if self._lock is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._lock = FileLock(str(self.folder / LOCK_FILE), timeout=WAIT_SECONDS)
        try:
            self._lock.acquire()
        except Timeout:
            raise MemoryFolderBusyError(self.folder) from None
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._lock is not None
        self._lock.release()

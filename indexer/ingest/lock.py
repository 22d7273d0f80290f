"""One index run at a time: an advisory lock file beside the index."""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path
from typing import IO

from indexer.store.errors import IndexBusyError, IndexError_  # noqa: F401 - raised here, importable from here


class IndexLock:
    """An advisory lock file beside the index: one writer at a time, readers never wait."""

    def __init__(self, db_path: Path):
        self.path = Path(str(db_path) + ".lock")
        self._fh: IO[str] | None = None

    def __enter__(self) -> "IndexLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            fh.seek(0)
            holder = fh.read().strip() or "unknown process"
            fh.close()
            raise IndexBusyError(self.path, holder) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        self._fh = fh
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fh:
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None

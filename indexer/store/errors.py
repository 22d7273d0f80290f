"""What can go wrong with an index file, each with a message meant for the user.

Each error's ``path`` is a ``Path`` whatever it was given: the index is opened with ``str``
paths (``pathlib`` is not loaded for a search), so ``pathlib`` is loaded when an error is made.
"""

from __future__ import annotations

import os

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.store.schema import SCHEMA_VERSION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from indexer.models import Session


def _as_path(path: str | os.PathLike[str]) -> Path:
    from pathlib import Path

    return Path(path)


class IndexError_(RuntimeError, ThreadbackError):
    """Base for index problems that carry a message meant for the user."""
    kind = errors.INDEX


class IndexCorruptError(IndexError_):
    def __init__(self, path: str | Path, detail: str):
        path = _as_path(path)
        super().__init__(
            f"the index at {path} is damaged or not a Threadback index ({detail}); "
            "run `threadback index --rebuild` to build it again from the logs"
        )
        self.path = path


class HelperError(IndexError_):
    """The index run's helper process (``indexer.ingest.helper``) failed or died; the message
    says why (the run's batch is rolled back). Here, not beside the helper, so the run that
    catches it need not load the helper to do so."""


class IndexOutdatedError(IndexError_):
    def __init__(self, path: str | Path, version: int):
        path = _as_path(path)
        super().__init__(
            f"the index at {path} has schema version {version}, older than this Threadback's "
            f"({SCHEMA_VERSION}); run `threadback index` once to upgrade it"
        )


class IndexTooNewError(IndexError_):
    def __init__(self, path: str | Path, version: int):
        path = _as_path(path)
        super().__init__(
            f"the index at {path} has schema version {version}, newer than this Threadback "
            f"understands ({SCHEMA_VERSION}): it was written by a newer Threadback; upgrade this one "
            "(or give --db another path)"
        )


class IndexSideDamagedError(IndexError_):
    """The side file (2-character CJK words, a trigram shard) is damaged; the main file is sound."""

    def __init__(self, path: str | Path, detail: str):
        path = _as_path(path)
        super().__init__(
            f"the side index beside {path} is damaged ({detail}); run `threadback index`: it rebuilds "
            "the side index from the main one, which is sound"
        )
        self.path = path


class IndexReadOnlyError(IndexError_):
    """The index cannot be written (read-only media, or no write permission): searching still works."""
    kind = errors.READ_ONLY

    def __init__(self, path: str | Path, detail: str):
        path = _as_path(path)
        super().__init__(
            f"the index at {path} cannot be written ({detail}): the disk or the file is read-only; "
            "searching still works; to update it, make it writable or use --db elsewhere"
        )
        self.path = path


class IndexLockedError(IndexError_):
    """Another program holds a lock on the index file (not a Threadback index run)."""
    kind = errors.BUSY

    def __init__(self, path: str | Path):
        path = _as_path(path)
        super().__init__(
            f"the index at {path} is locked by another program (a database browser, a backup?); "
            "try again when it lets go"
        )
        self.path = path


class IndexFullError(IndexError_):
    """The disk holding the index is full: nothing was lost, the last batch was rolled back."""
    kind = errors.DISK_FULL

    def __init__(self, path: str | Path, detail: str):
        path = _as_path(path)
        super().__init__(
            f"the disk holding {path} is full ({detail}); nothing indexed so far was lost: "
            "free some space and run `threadback index` again"
        )
        self.path = path


class IndexUnavailableError(IndexError_):
    """The index cannot be opened at all: its path is a folder, its folder is missing..."""

    def __init__(self, path: str | Path, detail: str):
        path = _as_path(path)
        super().__init__(f"cannot open the index at {path}: {detail}")
        self.path = path


class AmbiguousSessionError(LookupError, ThreadbackError):
    """A session id prefix that matches several sessions (``indexer.store.browse``). Kept here,
    beside the index's errors, so a command can name it without loading browsing."""
    kind = errors.USAGE

    def __init__(self, ref: str, candidates: list[Session]):
        listing = ", ".join(f"{s.agent}:{s.session_id}" for s in candidates[:5])
        super().__init__(f"“{ref}” matches {len(candidates)} sessions ({listing}…): give more of the id")
        self.candidates = candidates


class IndexBusyError(IndexError_):
    """Another index run holds the lock (``indexer.ingest.lock``). Kept here, so a command
    that only searches can name it without loading the lock and the ingest package."""
    kind = errors.BUSY

    def __init__(self, lock_path: Path, holder: str):
        super().__init__(
            f"another Threadback index run is updating this index ({holder}); "
            "searches still work; try `threadback index` again when it has finished"
        )
        self.lock_path = lock_path

"""What can go wrong with an index file, each with a message meant for the user."""

from __future__ import annotations

from pathlib import Path

from indexer.store.schema import SCHEMA_VERSION


class IndexError_(RuntimeError):
    """Base for index problems that carry a message meant for the user."""


class IndexCorruptError(IndexError_):
    def __init__(self, path: Path, detail: str):
        super().__init__(
            f"the index at {path} is damaged or not a Threadback index ({detail}); "
            "run `threadback index --rebuild` to build it again from the logs"
        )
        self.path = path


class IndexOutdatedError(IndexError_):
    def __init__(self, path: Path, version: int):
        super().__init__(
            f"the index at {path} has schema version {version}, older than this Threadback's "
            f"({SCHEMA_VERSION}); run `threadback index` once to upgrade it"
        )


class IndexTooNewError(IndexError_):
    def __init__(self, path: Path, version: int):
        super().__init__(
            f"the index at {path} has schema version {version}, newer than this Threadback "
            f"understands ({SCHEMA_VERSION}); upgrade Threadback or use --rebuild"
        )

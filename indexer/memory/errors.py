"""The errors the memory store raises, each fit to show the user as one line."""

from __future__ import annotations

from pathlib import Path

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.util.fileio import ChangedOnDiskError
from indexer.util.named_record import NamedTuple

__all__ = [
    "ChangedOnDiskError",
    "FactEditError",
    "FactFileError",
    "MemoryInputError",
    "MemoryNotFoundError",
    "Problem",
    "YamlIssue",
]


class MemoryInputError(ValueError, ThreadbackError):
    """Bad input from the caller (empty summary, importance 11, unparseable time ...)."""
    kind = errors.USAGE


class MemoryNotFoundError(LookupError, ThreadbackError):
    """No memory with that id, fact key or scratchpad line."""
    kind = errors.NOT_FOUND

    def __str__(self) -> str:  # LookupError would repr() the message
        return str(self.args[0]) if self.args else "not found"


class YamlIssue(NamedTuple):
    """One problem in YAML text, positioned 1-based for an editor."""

    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


class FactFileError(MemoryInputError):
    """fact.yml (or text meant for it) does not parse; nothing was written."""

    def __init__(self, path: Path | None, issues: list[YamlIssue]):
        self.path = path
        self.issues = issues
        where = f"{path}:" if path else ""
        first = issues[0] if issues else YamlIssue(1, 1, "invalid YAML")
        super().__init__(f"{where}{first.line}:{first.column}: {first.message}")


class FactEditError(MemoryInputError):
    """An archive/restore of a fact could not be done without changing more than that fact."""


class Problem(NamedTuple):
    """A line of a memory file that we could not read; it is kept in the file as it is."""

    path: Path
    line: int
    message: str
    text: str = ""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message} (kept as is)"

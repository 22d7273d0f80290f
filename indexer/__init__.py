"""Threadback's headless core: find agents' logs, index them, search them, keep memory.

Never imports a UI library (textual, rich, pygments, humanize) or ``tui``: a test checks.
"""

from indexer.agents.resume import resume_command
from indexer.config import ConfigError, SourceRoots, load_roots, only_roots
from indexer.index import AmbiguousSessionError, Index, IndexStats, ProjectSummary
from indexer.ingest.lock import IndexBusyError
from indexer.models import Hit, Message, Session
from indexer.search.fts import SearchResult, SessionHit
from indexer.search.query import Query, QueryError, parse_query
from indexer.store.errors import (
    IndexCorruptError,
    IndexError_,
    IndexFullError,
    IndexLockedError,
    IndexOutdatedError,
    IndexReadOnlyError,
    IndexSideDamagedError,
    IndexTooNewError,
    IndexUnavailableError,
)

# The memory and rule stores pull in a YAML library, and an index run's reports are only needed
# by what runs one: loaded on first use, so `threadback search` and the hooks start fast.
_LAZY = {"MemoryStore": "indexer.memory", "RuleStore": "indexer.rules",
         "IndexProgress": "indexer.ingest.progress", "IndexSummary": "indexer.ingest.progress"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'indexer' has no attribute {name!r}")


__all__ = [
    "AmbiguousSessionError",
    "ConfigError",
    "Hit",
    "Index",
    "IndexBusyError",
    "IndexCorruptError",
    "IndexError_",
    "IndexFullError",
    "IndexLockedError",
    "IndexOutdatedError",
    "IndexProgress",
    "IndexReadOnlyError",
    "IndexSideDamagedError",
    "IndexStats",
    "IndexSummary",
    "IndexTooNewError",
    "IndexUnavailableError",
    "MemoryStore",
    "Message",
    "ProjectSummary",
    "Query",
    "QueryError",
    "RuleStore",
    "SearchResult",
    "Session",
    "SessionHit",
    "SourceRoots",
    "load_roots",
    "only_roots",
    "parse_query",
    "resume_command",
]

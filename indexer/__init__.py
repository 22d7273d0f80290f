"""Threadback's headless core: find agents' logs, index them, search them, keep memory.

Never imports a UI library (textual, rich, pygments, humanize) or ``tui``: a test checks.

Every public name is loaded on first use from the module that defines it (``_WHERE``), so
``import indexer`` costs nothing and a command pays only for what it touches: ``threadback
search`` never loads the memory store's YAML library, an index run's reports or the browsing
queries.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing itself is not imported: it costs milliseconds

# Each public name -> the module that defines it.
_WHERE = {
    "resume_command": "indexer.agents.resume",
    "ConfigError": "indexer.config",
    "SourceRoots": "indexer.config",
    "load_roots": "indexer.config",
    "only_roots": "indexer.config",
    "AmbiguousSessionError": "indexer.store.errors",
    "Index": "indexer.index",
    "IndexStats": "indexer.store.browse",
    "ProjectSummary": "indexer.store.browse",
    "IndexBusyError": "indexer.store.errors",
    "Hit": "indexer.models",
    "Message": "indexer.models",
    "Session": "indexer.models",
    "SearchResult": "indexer.search.fts",
    "SessionHit": "indexer.search.fts",
    "Query": "indexer.search.query",
    "QueryError": "indexer.search.query",
    "parse_query": "indexer.search.query",
    "IndexCorruptError": "indexer.store.errors",
    "IndexError_": "indexer.store.errors",
    "IndexFullError": "indexer.store.errors",
    "IndexLockedError": "indexer.store.errors",
    "IndexOutdatedError": "indexer.store.errors",
    "IndexReadOnlyError": "indexer.store.errors",
    "IndexSideDamagedError": "indexer.store.errors",
    "IndexTooNewError": "indexer.store.errors",
    "IndexUnavailableError": "indexer.store.errors",
    "MemoryStore": "indexer.memory",
    "RuleStore": "indexer.rules",
    "IndexProgress": "indexer.ingest.progress",
    "IndexSummary": "indexer.ingest.progress",
}


def lazy_names(package: str, namespace: dict, where: dict):
    """A package's ``__getattr__`` and ``__dir__`` that load each name of ``where`` (name ->
    module, or (module, its name there)) on first use and keep it in ``namespace``, so later
    lookups are plain attribute reads. ``indexer.memory`` and ``indexer.rules`` use it too."""

    def __getattr__(name: str):
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attr = where[name] if isinstance(where[name], tuple) else (where[name], name)
        __import__(module)  # not ``importlib``: it loads ``warnings`` (~0.5 ms with it)
        value = namespace[name] = getattr(sys.modules[module], attr)
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return __getattr__, __dir__


__getattr__, __dir__ = lazy_names(__name__, globals(), _WHERE)
__all__ = sorted(_WHERE)  # ``from indexer import *`` loads them through ``__getattr__``


if TYPE_CHECKING:  # what type checkers and editors see
    from indexer.agents.resume import resume_command
    from indexer.config import ConfigError, SourceRoots, load_roots, only_roots
    from indexer.index import Index
    from indexer.ingest.progress import IndexProgress, IndexSummary
    from indexer.memory import MemoryStore
    from indexer.models import Hit, Message, Session
    from indexer.rules import RuleStore
    from indexer.search.fts import SearchResult, SessionHit
    from indexer.search.query import Query, QueryError, parse_query
    from indexer.store.browse import IndexStats, ProjectSummary
    from indexer.store.errors import (
        AmbiguousSessionError,
        IndexBusyError,
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

__all__ = sorted(_WHERE)

"""One search over the sessions and the memory folder, as the app's search screen offers it.

The scope decides what is searched: ``sessions``, ``sessions+memory`` (the memory hits come first,
at most ``MEMORY_WITH_SESSIONS`` of them and only on the first page, then the session hits) or
``memory`` (memory hits, paged). Both sides answer the same query words; ``agent:`` and
``project:`` narrow only the sessions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.project_scope import ProjectScope
from indexer.search.fts import SearchResult
from indexer.search.query import QueryError, Term, parse_query

if TYPE_CHECKING:  # the memory store pulls in a YAML library: loaded only by whoever opens one
    from indexer.index import Index
    from indexer.memory import MemoryHit, MemoryStore

SCOPES = ("sessions", "sessions+memory", "memory")
PAGE_SIZE = 50
MEMORY_WITH_SESSIONS = 10  # memory hits above the session hits, on the first page


@dataclass(frozen=True)
class SearchRequest:
    """Everything a search depends on; a newer request makes an older answer stale."""

    text: str = ""
    agent: str | None = None
    project_scope: ProjectScope | None = None  # "this project" (ctrl+o): an exact folder
    one_per_session: bool = False
    page: int = 0
    scope: str = "sessions"  # one of SCOPES

    @property
    def includes_sessions(self) -> bool:
        return self.scope != "memory"

    @property
    def includes_memory(self) -> bool:
        return self.scope != "sessions"

    @property
    def has_query(self) -> bool:
        """Whether there is anything to search for (memory ignores agent:/project:)."""
        return bool(self.query_text if self.includes_sessions else self.text.strip())

    @property
    def query_text(self) -> str:
        parts = [self.text.strip()]
        if self.agent:
            parts.append(f"agent:{self.agent}")
        return " ".join(p for p in parts if p)


@dataclass(frozen=True)
class MemoryResult:
    """The memory side of a search: the hits on show (one page), of how many."""

    hits: tuple[MemoryHit, ...]
    total: int
    terms: tuple[Term, ...]
    folder: Path | None
    error: str | None = None


@dataclass(frozen=True)
class UnifiedResult:
    """Both sides of one request; ``error`` is a query the sessions index cannot answer."""

    request: SearchRequest
    sessions: SearchResult | None = None
    memory: MemoryResult | None = None
    error: str | None = field(default=None)


def search_memory(open_store: Callable[[], MemoryStore], request: SearchRequest, now: float) -> MemoryResult:
    """The memory folder's answer to the query's words.

    Never recorded as a retrieval: ``retrieval_count`` counts what agents were given."""
    text = request.text.strip()
    try:
        moment = datetime.fromtimestamp(now, tz=timezone.utc)
        terms = tuple(parse_query(text, now).positive_terms)
        store = open_store()
        hits = store.search(text, moment, record=False)
    except (OSError, ValueError, LookupError) as exc:
        return MemoryResult((), 0, (), None, f"memory: {exc}")
    if request.includes_sessions:
        shown = hits[:MEMORY_WITH_SESSIONS] if request.page == 0 else []
    else:
        shown = hits[request.page * PAGE_SIZE:(request.page + 1) * PAGE_SIZE]
    return MemoryResult(tuple(shown), len(hits), terms, store.folder)


def search_everything(
    index: Index,
    open_store: Callable[[], MemoryStore],
    request: SearchRequest,
    now: float,
    *,
    should_stop: Callable[[], bool] = lambda: False,
    closest: bool = True,
) -> UnifiedResult | None:
    """Answer ``request`` from the memory folder and the session index, as its scope says.
    ``closest``: closest matches after the exact ones (``with_closest`` adds them later).

    ``None`` when ``should_stop`` turned true between the two (a newer request is on its way)."""
    memory = search_memory(open_store, request, now) if request.includes_memory else None
    if should_stop():
        return None
    if not request.includes_sessions:
        return UnifiedResult(request, None, memory)
    try:
        # One per session: the session-level search; the list shows each session's best message.
        sessions = index.search(
            request.query_text, now=now, limit=PAGE_SIZE, offset=request.page * PAGE_SIZE,
            by_session=request.one_per_session, evidence=1, project_scope=request.project_scope, closest=closest,
        )
    except QueryError as exc:
        return UnifiedResult(request, None, memory, str(exc))
    return UnifiedResult(request, sessions, memory)


def with_closest(index: Index, first: UnifiedResult, now: float) -> UnifiedResult | None:
    """``first`` (an exact-only answer) with closest matches after its exact ones, or None when
    it has none to add: the app shows the exact answer at once and this one when it is ready."""
    exact, request = first.sessions, first.request
    if exact is None or exact.total >= (request.page + 1) * PAGE_SIZE:
        return None
    try:
        sessions = index.search(
            request.query_text, now=now, limit=PAGE_SIZE, offset=request.page * PAGE_SIZE,
            by_session=request.one_per_session, evidence=1, project_scope=request.project_scope,
        )
    except QueryError:
        return None
    added = len(sessions.sessions if sessions.by_session else sessions.hits) > sessions.closest_from
    return UnifiedResult(request, sessions, first.memory) if added or sessions.tried else None

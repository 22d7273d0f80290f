"""``Index``: the one object the CLI and the app use to update, search, browse and rebuild the index.

Connections are per thread (the app's workers search while the UI thread reads sessions), all
in WAL mode so reads never wait for an index run. The work itself lives in ``indexer.ingest``
(writing), ``indexer.search`` (searching) and ``indexer.store.browse`` (lists and transcripts).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

from indexer.config import SourceRoots
from indexer.ingest import IndexLock, IndexSummary, ProgressCallback, update_index
from indexer.ingest.failures import FailedFile, failed_files
from indexer.models import Message, Session
from indexer.search.fts import SearchResult, run_search
from indexer.search.query import Query, parse_query
from indexer.store import browse
from indexer.store.browse import AmbiguousSessionError, IndexStats, ProjectSummary
from indexer.store.connection import connect, remove_index_files
from indexer.store.errors import IndexError_
from indexer.store.models import fetch_context

__all__ = ["AmbiguousSessionError", "Index", "IndexStats", "ProjectSummary"]


class Index:
    """An index file. Cheap to create; connections open lazily, one per thread."""

    def __init__(self, path: Path | str, *, readonly: bool = False):
        self.path = Path(path)
        self.readonly = readonly
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    # -- connections -------------------------------------------------------------
    @property
    def conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path, readonly=self.readonly)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._all.clear()
        self._local = threading.local()

    def __enter__(self) -> "Index":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def exists(self) -> bool:
        return self.path.exists()

    # -- writing ----------------------------------------------------------------
    def update(
        self,
        roots: SourceRoots,
        *,
        progress: ProgressCallback | None = None,
        should_stop: Callable[[], bool] | None = None,
        now: float | None = None,
    ) -> IndexSummary:
        """Index what is new under ``roots``. Raises ``IndexBusyError`` if another run holds the lock."""
        return update_index(self.conn, self.path, roots, progress=progress, should_stop=should_stop, now=now)

    def failing_files(self) -> list[FailedFile]:
        """Log files that could not be stored, as they were then (skipped until they change)."""
        return failed_files(self.conn)

    def delete_files(self) -> None:
        """Delete the index and its side file (``--rebuild``: the next ``update`` starts afresh).

        Taken under the index lock, so a running index run is never pulled from under; raises
        ``IndexBusyError`` then."""
        self.close()
        with IndexLock(self.path):
            remove_index_files(self.path)

    # -- searching --------------------------------------------------------------
    def search(
        self,
        query: str | Query,
        *,
        now: float | None = None,
        limit: int = 50,
        offset: int = 0,
        one_per_session: bool = False,
        exclude_sessions: tuple[str, ...] | list[str] = (),
        context: int = 0,
    ) -> SearchResult:
        """Search; raises ``QueryError`` (with a message for the user) for unanswerable queries."""
        if isinstance(query, str):
            query = parse_query(query, now if now is not None else time.time())
        return run_search(
            self.conn,
            query,
            limit=limit,
            offset=offset,
            one_per_session=one_per_session,
            exclude_sessions=tuple(exclude_sessions),
            context=context,
        )

    def context(self, message: Message, before: int, after: int) -> tuple[tuple[Message, ...], tuple[Message, ...]]:
        """The ``before`` messages preceding and ``after`` following ``message`` in its session."""
        return fetch_context(self.conn, message, before, after)

    # -- browsing ---------------------------------------------------------------
    def stats(self) -> IndexStats:
        """The counts; an index that cannot be read raises ``IndexError_`` with the reason."""
        try:
            return browse.stats(self.conn, self.path)
        except sqlite3.Error as exc:
            raise IndexError_(f"cannot read the index at {self.path}: {exc}") from exc

    def check(self) -> None:
        """Open the index now, so a missing schema or a damaged file is reported here
        (``IndexCorruptError``, ``IndexTooNewError``) rather than mid-search."""
        self.conn  # noqa: B018 - opening checks the schema version and touches the tables

    def session(self, ref: str | int) -> Session | None:
        """A session by row id, full session id, ``agent:id``, or a unique id prefix; raises
        ``AmbiguousSessionError`` when a prefix matches several."""
        return browse.session(self.conn, ref)

    def sessions(
        self,
        *,
        agent: str | None = None,
        project: str | None = None,
        project_path: str | None = ...,  # type: ignore[assignment]
        since: float | None = None,
        until: float | None = None,
        parent: str | None = ...,  # type: ignore[assignment]
        text: str | None = None,
        limit: int | None = 200,
        offset: int = 0,
        newest_first: bool = True,
    ) -> list[Session]:
        """Sessions filtered by agent, project (substring of name or path), exact project path,
        time range, parent (``None`` = top-level only) and title/id text."""
        return browse.sessions(
            self.conn, agent=agent, project=project, project_path=project_path, since=since, until=until,
            parent=parent, text=text, limit=limit, offset=offset, newest_first=newest_first,
        )

    def parent(self, session: Session) -> Session | None:
        """The session that spawned a subagent session (None for a top-level one)."""
        if not session.parent_session_id:
            return None
        return self.session(f"{session.agent}:{session.parent_session_id}")

    def children(self, session: Session) -> list[Session]:
        """Subagent sessions spawned by ``session``, oldest first."""
        return self.sessions(agent=session.agent, parent=session.session_id, limit=None, newest_first=False)

    def agents(self) -> list[tuple[str, int]]:
        """(agent, top-level session count), by agent name."""
        return browse.agents(self.conn)

    def projects(self, agent: str) -> list[ProjectSummary]:
        return browse.projects(self.conn, agent)

    def days(self, agent: str, project_path: str | None) -> list[tuple[str, int]]:
        return browse.days(self.conn, agent, project_path)

    def sessions_on_day(self, agent: str, project_path: str | None, day: str) -> list[Session]:
        return browse.sessions_on_day(self.conn, agent, project_path, day)

    def messages(self, session: Session | int, start: int = 0, limit: int | None = None) -> list[Message]:
        return browse.messages(self.conn, session, start, limit)

    def message(self, message_id: int) -> Message | None:
        return browse.message(self.conn, message_id)

    def iter_events(
        self,
        *,
        since: float | None = None,
        until: float | None = None,
        kinds: tuple[str, ...] = (),
        tools: tuple[str, ...] = (),
        agent: str | None = None,
        session_rowid: int | None = None,
    ) -> Iterator[tuple[Session, Message]]:
        """(Session, Message) pairs in time order: the normalised event stream."""
        return browse.iter_events(
            self.conn, since=since, until=until, kinds=kinds, tools=tools, agent=agent, session_rowid=session_rowid
        )

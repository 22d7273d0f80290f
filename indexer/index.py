"""``Index``: the one object the CLI and the app use to update, search, browse and rebuild the index.

Connections are per thread (the app's workers search while the UI thread reads sessions), all
in WAL mode so reads never wait for an index run. The work itself lives in ``indexer.ingest``
(writing), ``indexer.search`` (searching) and ``indexer.store.browse`` (lists and transcripts).

The file is kept as a ``str`` (``file``) and opened with it; ``path``, the same file as a
``Path``, is made on first use: a search loads no ``pathlib`` (~4 ms with what it imports).
"""

from __future__ import annotations

import functools
import os
import sqlite3
import time
from _thread import _local, allocate_lock  # what threading.Lock/local are; threading costs ~1-2 ms to import

from indexer.config import ConfigError, SourceRoots, archive_enabled
from indexer.models import Message, Session
from indexer.store.connection import BUSY_TIMEOUT_MS, connect, remove_index_files
from indexer.store.errors import IndexBusyError, IndexError_
from indexer.store.health import diagnose
from indexer.store.rows import fetch_context

TYPE_CHECKING = False
if TYPE_CHECKING:  # the archive loads zstandard, the run's records tempfile: imported where a method needs them
    from pathlib import Path
    from types import EllipsisType
    from typing import Any, Callable, Iterator, TypeVar

    from indexer.activity import ActivityStrip
    from indexer.archive import Restored
    from indexer.ingest.failures import FailedFile
    from indexer.ingest.outcome import RunOutcome
    from indexer.ingest.progress import IndexSummary, ProgressCallback
    from indexer.models import FileTouches
    from indexer.project_scope import ProjectScope
    from indexer.search.fts import SearchResult
    from indexer.search.query import Query
    from indexer.store.browse import IndexStats, ProjectSummary

__all__ = ["AmbiguousSessionError", "Index", "IndexStats", "ProjectSummary"]
# Browsing (lists, transcripts, the activity strip) is loaded on first use: a search does not
# need it. These names are still importable from here.
_FROM_BROWSE = ("AmbiguousSessionError", "IndexStats", "ProjectSummary")


def __getattr__(name: str) -> Any:
    if name in _FROM_BROWSE:
        return getattr(_browse(), name)
    raise AttributeError(f"module 'indexer.index' has no attribute {name!r}")


def _browse() -> Any:
    from indexer.store import browse

    return browse


if TYPE_CHECKING:
    F = TypeVar("F", bound=Callable[..., Any])

ARCHIVE_SIZE_MAX_AGE = 600.0  # seconds: the archive's size after a run that only found logs grown

# SQLite's words for a query too big or too odd to run: the query's fault, not the index's.
_QUERY_PROBLEMS = ("fts5", "syntax error", "too many", "too large", "too big", "parser stack", "unterminated")


def _told_truthfully(method: F) -> F:
    """A database or OS error from ``method`` becomes the ``IndexError_`` that says what is
    wrong: damage (checked with ``PRAGMA quick_check``), read-only media, a lock, a full disk."""

    @functools.wraps(method)
    def run(self: "Index", *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (sqlite3.Error, OSError) as exc:
            raise diagnose(self.path, exc) from exc

    return run  # type: ignore[return-value]  # same signature; typing.cast would load typing on start-up


class Index:
    """An index file. Cheap to create; connections open lazily, one per thread."""

    def __init__(self, path: Path | str, *, readonly: bool = False, busy_timeout_ms: int = BUSY_TIMEOUT_MS):
        self.file = os.fspath(path)
        self.readonly = readonly
        self.busy_timeout_ms = busy_timeout_ms  # hooks wait less for a lock than people do
        self._local = _local()
        self._all: list[sqlite3.Connection] = []
        self._lock = allocate_lock()

    # -- connections -------------------------------------------------------------
    @property
    def conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.file, readonly=self.readonly, busy_timeout_ms=self.busy_timeout_ms)
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
        self._local = _local()

    def __enter__(self) -> "Index":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @functools.cached_property
    def path(self) -> Path:
        """The index file as a ``Path`` (for the app, the archive, the run's records)."""
        from pathlib import Path

        return Path(self.file)

    @property
    def exists(self) -> bool:
        return os.path.exists(self.file)

    # -- writing ----------------------------------------------------------------
    def update(self, roots: SourceRoots, *, progress: ProgressCallback | None = None,
               should_stop: Callable[[], bool] | None = None, now: float | None = None, where: str = "",
               only: list[str] | None = None, archive: bool | None = None) -> IndexSummary:
        """Index what is new under ``roots`` (``only``: just these files, for live updates).
        Raises ``IndexBusyError`` if another run holds the lock, ``ConfigError`` if the config
        file cannot be read. How the run ended is left
        beside the index (``last_run``), for runs nobody watches. ``archive``: keep compressed
        copies of the logs (``indexer.archive``); None: as the config file says (on by default)."""
        from indexer.ingest.outcome import RunOutcome, record_outcome

        try:
            summary = self._update(roots, progress, should_stop, now, only, archive)
        except IndexBusyError:
            raise  # the run holding the lock records its own outcome
        except (IndexError_, ConfigError) as exc:  # a config file that cannot be read: nothing indexed
            record_outcome(self.path, RunOutcome(time.time(), False, " ".join(str(exc).split()), where=where))
            raise
        record_outcome(self.path, RunOutcome(time.time(), True, files_failing=summary.files_failing,
                                             messages_added=summary.messages_added, where=where,
                                             retention_warning=summary.status_note if not summary.failing_note else ""))
        return summary

    @_told_truthfully
    def merge_segments(self, seconds: float, should_stop: Callable[[], bool] | None = None) -> bool:
        """Merge the full-text tables' segments for up to ``seconds`` (the app, idle after a build):
        True when nothing is left. Raises ``IndexBusyError`` while a run holds the lock."""
        from indexer.ingest.run import merge_while_idle

        return self.readonly or merge_while_idle(self.conn, self.path, seconds=seconds, should_stop=should_stop)

    @_told_truthfully
    def _update(self, roots: SourceRoots, progress: ProgressCallback | None,
                should_stop: Callable[[], bool] | None, now: float | None,
                only: list[str] | None = None, archive: bool | None = None) -> IndexSummary:
        from indexer.archive import archive_size_cached  # zstandard: only when writing
        from indexer.ingest.run import update_index  # the writer's modules, only when writing

        enabled = archive_enabled() if archive is None else archive
        summary = update_index(self.conn, self.path, roots, progress=progress, should_stop=should_stop, now=now,
                               only=only, archive_dir=self.archive_dir if enabled else None)
        # Walking the archive stats every copy: a live update (``only``, every second while an
        # agent writes) reports the last full run's figure instead, and a run that only found
        # logs grown (a hook's after each turn: no copy added or gone) one up to 10 minutes old
        # (4,796 logs: ~35 ms a walk).
        added_or_gone = bool(summary.files_new or summary.files_reindexed or summary.files_missing)
        size = archive_size_cached(self.archive_dir, refresh=added_or_gone and only is None,
                                   max_age=ARCHIVE_SIZE_MAX_AGE if summary.files_appended and only is None else None)
        if size.lone_links and enabled:  # left by a crash before sealing, or a run without the archive
            from indexer.archive.seal import seal_copies, with_keys

            keys = (row[0] for row in self.conn.execute("SELECT path FROM files"))
            summary.problems += seal_copies(with_keys(size.lone_links, keys))
            size = archive_size_cached(self.archive_dir, refresh=True)
        summary.archive_files, summary.archive_bytes = size.files, size.bytes
        if only is None:
            from indexer.agents.retention import index_retention_warnings
            from indexer.sources import PLUGIN_PROBLEMS  # a third-party agent that did not load

            summary.problems += PLUGIN_PROBLEMS

            summary.retention_warnings = index_retention_warnings(self.conn, roots, archive_on=enabled,
                                                                  now=time.time() if now is None else now)
        return summary

    # -- the archive --------------------------------------------------------------
    @property
    def archive_dir(self) -> Path:
        """Where the logs' compressed copies are kept: ``archive/`` beside the index."""
        from indexer.archive import archive_dir_for

        return archive_dir_for(self.path)

    def restore(self, session: Session, *, to: str | None = None, force: bool = False) -> Restored:
        """Write a session's log back from the archive, byte for byte (to its original path, or
        ``to``). Raises ``ArchiveError`` (``RestoreRefused`` for a different file in the way)."""
        from indexer.archive import ArchiveError, restore_log

        paths = self._log_paths(session)
        if not paths:
            raise ArchiveError(f"session {session.session_id} has no log file in the index")
        return restore_log(self.archive_dir, paths[0], to=to, force=force)

    def last_run(self) -> RunOutcome | None:
        """How the last index run over this index ended (any process: the app, a hook, the CLI)."""
        from indexer.ingest.outcome import read_outcome

        return read_outcome(self.path)

    @_told_truthfully
    def failing_files(self) -> list[FailedFile]:
        """Log files that could not be stored, as they were then (skipped until they change)."""
        from indexer.ingest.failures import failed_files

        return failed_files(self.conn)

    def delete_files(self) -> None:
        """Delete the index and its side file (``--rebuild``: the next ``update`` starts afresh).

        Taken under the index lock, so a running index run is never pulled from under; raises
        ``IndexBusyError`` then."""
        from indexer.ingest.lock import IndexLock  # a search never takes the lock

        self.close()
        try:
            with IndexLock(self.path):
                remove_index_files(self.path)
        except OSError as exc:
            raise diagnose(self.path, exc) from exc

    @_told_truthfully
    def _log_paths(self, session: Session) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT path FROM files WHERE session_rowid = ? ORDER BY id", (session.id,))]

    # -- files touched by tool calls ------------------------------------------------
    @_told_truthfully
    def files_touched(self, path: str, *, cwd: str | None = None) -> list[FileTouches]:
        """Sessions whose tool calls touched ``path``, newest first: a relative path is taken
        against ``cwd`` first, then as a suffix (``src/app.py``)."""
        from indexer.store.file_sessions import touches_of_file

        return touches_of_file(self.conn, path, cwd)

    # -- searching --------------------------------------------------------------
    @_told_truthfully
    def search(
        self,
        query: str | Query,
        *,
        now: float | None = None,
        limit: int = 50,
        offset: int = 0,
        by_session: bool = False,
        one_per_session: bool = False,
        exclude_sessions: tuple[str, ...] | list[str] = (),
        context: int = 0,
        project_scope: ProjectScope | None = None,
        evidence: int = 3,
        closest: bool = True,
    ) -> SearchResult:
        """Search messages, or with ``by_session`` (``one_per_session`` is the same) sessions:
        every word somewhere in one session, each result with its best messages as evidence.
        ``project_scope`` keeps one project's sessions (its exact folder, or also the folders
        under it), unlike ``project:`` in a query, which matches part of a name or path;
        ``evidence`` is how many of each session's best messages the session view shows.
        When fewer than a page hold every word, ``closest`` matches follow them
        (``indexer.search.closest``); each hit says how it matched.

        Raises ``QueryError`` (with a message for the user) when nothing in the query is
        searchable."""
        from indexer.search.fts import run_search  # here: an index run (a hook's) never searches (~8 ms)
        from indexer.search.query import QueryError, parse_query

        if isinstance(query, str):
            query = parse_query(query, now if now is not None else time.time())
        try:
            return run_search(
                self.conn,
                query,
                limit=limit,
                offset=offset,
                by_session=by_session or one_per_session,
                exclude_sessions=tuple(exclude_sessions),
                context=context,
                project_scope=project_scope,
                evidence=evidence,
                closest=closest,
            )
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if any(word in text for word in _QUERY_PROBLEMS) and "corrupt" not in text:
                raise QueryError(f"this query cannot be run ({exc}); try fewer or simpler terms") from exc
            raise

    @_told_truthfully
    def context(self, message: Message, before: int, after: int) -> tuple[tuple[Message, ...], tuple[Message, ...]]:
        """The ``before`` messages preceding and ``after`` following ``message`` in its session."""
        return fetch_context(self.conn, message, before, after)

    # -- browsing ---------------------------------------------------------------
    @_told_truthfully
    def stats(self) -> IndexStats:
        """The counts; an index that cannot be read raises ``IndexError_`` with the reason."""
        return _browse().stats(self.conn, self.path)

    @_told_truthfully
    def check(self) -> None:
        """Open the index now, so a missing schema or a damaged file is reported here
        (``IndexCorruptError``, ``IndexTooNewError``) rather than mid-search."""
        self.conn  # noqa: B018 - opening checks the schema version and touches the tables

    @_told_truthfully
    def session(self, ref: str | int) -> Session | None:
        """A session by row id, full session id, ``agent:id``, or a unique id prefix; raises
        ``AmbiguousSessionError`` when a prefix matches several."""
        return _browse().session(self.conn, ref)

    @_told_truthfully
    def sessions(
        self,
        *,
        agent: str | None = None,
        project: str | None = None,
        project_path: str | None | EllipsisType = ...,
        since: float | None = None,
        until: float | None = None,
        parent: str | None | EllipsisType = ...,
        text: str | None = None,
        limit: int | None = 200,
        offset: int = 0,
        newest_first: bool = True,
    ) -> list[Session]:
        """Sessions filtered by agent, project (substring of name or path), exact project path,
        time range, parent (``None`` = top-level only) and title/id text."""
        return _browse().sessions(
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

    @_told_truthfully
    def agents(self) -> list[tuple[str, int]]:
        """(agent, top-level session count), by agent name."""
        return _browse().agents(self.conn)

    @_told_truthfully
    def projects(self, agent: str) -> list[ProjectSummary]:
        return _browse().projects(self.conn, agent)

    @_told_truthfully
    def days(self, agent: str, project_path: str | None) -> list[tuple[str, int]]:
        return _browse().days(self.conn, agent, project_path)

    @_told_truthfully
    def sessions_on_day(self, agent: str, project_path: str | None, day: str) -> list[Session]:
        return _browse().sessions_on_day(self.conn, agent, project_path, day)

    @_told_truthfully
    def activity(self, now: float, days: int | None = None) -> ActivityStrip:
        """Sessions started and messages written per day, ``days`` days (default: the strip's
        span, ``STRIP_DAYS``) up to ``now``'s."""
        from indexer.activity import STRIP_DAYS
        from indexer.store.activity_days import activity_days

        return activity_days(self.conn, now, STRIP_DAYS if days is None else days)

    @_told_truthfully
    def messages(self, session: Session | int, start: int = 0, limit: int | None = None) -> list[Message]:
        return _browse().messages(self.conn, session, start, limit)

    @_told_truthfully
    def message(self, message_id: int) -> Message | None:
        return _browse().message(self.conn, message_id)

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
        try:
            yield from _browse().iter_events(
                self.conn, since=since, until=until, kinds=kinds, tools=tools, agent=agent, session_rowid=session_rowid
            )
        except (sqlite3.Error, OSError) as exc:
            raise diagnose(self.path, exc) from exc

"""``Index``: the one object the CLI and the TUI use to update, search and browse the index.

Connections are per thread (TUI workers search while the UI thread reads sessions), all in
WAL mode so reads never wait for an index run.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from indexer.store import connection as db
from indexer.config import SourceRoots
from indexer.ingest.writer import IndexSummary, ProgressCallback, update_index
from indexer.models import Message, Session
from indexer.search.query import Query, parse_query
from indexer.search.fts import (
    MESSAGE_COLUMNS,
    SESSION_COLUMNS,
    SearchResult,
    fetch_context,
    message_from_row,
    run_search,
    session_from_row,
)


@dataclass(frozen=True)
class IndexStats:
    path: Path
    sessions: int
    messages: int
    files: int
    missing_files: int
    last_indexed: float | None
    size_bytes: int


@dataclass(frozen=True)
class ProjectSummary:
    project_path: str | None
    project_name: str | None
    session_count: int
    last_ts: float | None


class AmbiguousSessionError(LookupError):
    def __init__(self, ref: str, candidates: list[Session]):
        listing = ", ".join(f"{s.agent}:{s.session_id}" for s in candidates[:5])
        super().__init__(f"“{ref}” matches {len(candidates)} sessions ({listing}…): give more of the id")
        self.candidates = candidates


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
            conn = db.connect(self.path, readonly=self.readonly)
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
        return fetch_context(self.conn, message, before, after)

    # -- browsing ---------------------------------------------------------------
    def stats(self) -> IndexStats:
        c = self.conn
        last = c.execute("SELECT value FROM meta WHERE key = 'last_indexed'").fetchone()
        size = sum(p.stat().st_size for p in db.index_files(self.path) if p.exists())
        # Messages are counted in meta by each index run: count(*) walks a million rows.
        kept = c.execute("SELECT value FROM meta WHERE key = 'message_count'").fetchone()
        messages = int(kept[0]) if kept else c.execute("SELECT count(*) FROM messages").fetchone()[0]
        return IndexStats(
            path=self.path,
            sessions=c.execute("SELECT count(*) FROM sessions").fetchone()[0],
            messages=messages,
            files=c.execute("SELECT count(*) FROM files").fetchone()[0],
            missing_files=c.execute("SELECT count(*) FROM files WHERE missing = 1").fetchone()[0],
            last_indexed=float(last[0]) if last else None,
            size_bytes=size,
        )

    def session(self, ref: str | int) -> Session | None:
        """A session by row id, full session id, ``agent:id``, or a unique id prefix."""
        c = self.conn
        if isinstance(ref, int):
            r = c.execute(f"SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = ?", (ref,)).fetchone()
            return session_from_row(r) if r else None
        agent = None
        if ":" in ref and ref.split(":", 1)[0] in ("claude-code", "codex", "pi"):
            agent, ref = ref.split(":", 1)
        agent_sql = " AND s.agent = ?" if agent else ""
        extra = [agent] if agent else []
        r = c.execute(
            f"SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.session_id = ?{agent_sql}", (ref, *extra)
        ).fetchall()
        if len(r) == 1:
            return session_from_row(r[0])
        if not r and len(ref) >= 4:
            escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            r = c.execute(
                f"SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.session_id LIKE ? ESCAPE '\\'{agent_sql} LIMIT 6",
                (escaped + "%", *extra),
            ).fetchall()
            if len(r) == 1:
                return session_from_row(r[0])
        if len(r) > 1:
            raise AmbiguousSessionError(ref, [session_from_row(x) for x in r])
        return None

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
        where, params = ["1=1"], []
        if agent:
            where.append("s.agent = ?")
            params.append(agent)
        if project:
            where.append("(s.project_name LIKE ? OR s.project_path LIKE ?)")
            params += [f"%{project}%", f"%{project}%"]
        if project_path is not ...:
            if project_path is None:
                where.append("s.project_path IS NULL")
            else:
                where.append("s.project_path = ?")
                params.append(project_path)
        if since is not None:
            where.append("coalesce(s.end_ts, s.start_ts) >= ?")
            params.append(since)
        if until is not None:
            where.append("s.start_ts < ?")
            params.append(until)
        if parent is not ...:
            if parent is None:
                where.append("s.parent_session_id IS NULL")
            else:
                where.append("s.parent_session_id = ?")
                params.append(parent)
        if text:
            where.append("(s.title LIKE ? OR s.session_id LIKE ? OR s.project_name LIKE ?)")
            params += [f"%{text}%"] * 3
        order = "DESC" if newest_first else "ASC"
        sql = (
            f"SELECT {SESSION_COLUMNS} FROM sessions s WHERE {' AND '.join(where)}"
            f" ORDER BY s.start_ts {order}, s.id {order}"
        )
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            params += [limit, offset]
        return [session_from_row(r) for r in self.conn.execute(sql, params)]

    def parent(self, session: Session) -> Session | None:
        """The session that spawned a subagent session (None for a top-level one)."""
        if not session.parent_session_id:
            return None
        return self.session(f"{session.agent}:{session.parent_session_id}")

    def children(self, session: Session) -> list[Session]:
        """Subagent sessions spawned by ``session``, oldest first."""
        return self.sessions(agent=session.agent, parent=session.session_id, limit=None, newest_first=False)

    def agents(self) -> list[tuple[str, int]]:
        return [
            (r[0], r[1])
            for r in self.conn.execute(
                "SELECT agent, count(*) FROM sessions WHERE parent_session_id IS NULL GROUP BY agent ORDER BY agent"
            )
        ]

    def projects(self, agent: str) -> list[ProjectSummary]:
        rows = self.conn.execute(
            "SELECT project_path, max(project_name), count(*), max(coalesce(end_ts, start_ts))"
            " FROM sessions WHERE agent = ? AND parent_session_id IS NULL"
            " GROUP BY project_path ORDER BY max(coalesce(end_ts, start_ts)) DESC",
            (agent,),
        )
        return [ProjectSummary(r[0], r[1], r[2], r[3]) for r in rows]

    def days(self, agent: str, project_path: str | None) -> list[tuple[str, int]]:
        """(YYYY-MM-DD in UTC, session count) for a project's top-level sessions, newest first."""
        cond = "project_path IS NULL" if project_path is None else "project_path = ?"
        params = [agent] + ([] if project_path is None else [project_path])
        rows = self.conn.execute(
            "SELECT date(start_ts, 'unixepoch') AS day, count(*) FROM sessions"
            f" WHERE agent = ? AND {cond} AND parent_session_id IS NULL"
            " GROUP BY day ORDER BY day DESC",
            params,
        )
        return [(r[0] or "undated", r[1]) for r in rows]

    def sessions_on_day(self, agent: str, project_path: str | None, day: str) -> list[Session]:
        """A project's top-level sessions that started on ``day`` (UTC, or "undated"), newest first."""
        where = ["s.agent = ?", "s.parent_session_id IS NULL"]
        params: list = [agent]
        if project_path is None:
            where.append("s.project_path IS NULL")
        else:
            where.append("s.project_path = ?")
            params.append(project_path)
        if day == "undated":
            where.append("s.start_ts IS NULL")
        else:
            start = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp()
            where.append("s.start_ts >= ? AND s.start_ts < ?")
            params += [start, start + 86400]
        rows = self.conn.execute(
            f"SELECT {SESSION_COLUMNS} FROM sessions s WHERE {' AND '.join(where)} ORDER BY s.start_ts DESC, s.id DESC",
            params,
        )
        return [session_from_row(r) for r in rows]

    def messages(self, session: Session | int, start: int = 0, limit: int | None = None) -> list[Message]:
        """A session's messages in order, from ordinal ``start``."""
        rowid = session.id if isinstance(session, Session) else session
        sql = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_rowid = ? AND ordinal >= ? ORDER BY ordinal"
        params: list = [rowid, start]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [message_from_row(r) for r in self.conn.execute(sql, params)]

    def message(self, message_id: int) -> Message | None:
        r = self.conn.execute(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,)).fetchone()
        return message_from_row(r) if r else None

    def iter_events(
        self,
        *,
        since: float | None = None,
        until: float | None = None,
        kinds: tuple[str, ...] = (),
        tools: tuple[str, ...] = (),
        agent: str | None = None,
        session_rowid: int | None = None,
    ):
        """(Session, Message) pairs in time order: the normalised event stream."""
        where, params = ["1=1"], []
        if since is not None:
            where.append("m.ts >= ?")
            params.append(since)
        if until is not None:
            where.append("m.ts < ?")
            params.append(until)
        if kinds:
            where.append(f"m.kind IN ({','.join('?' * len(kinds))})")
            params += list(kinds)
        if tools:
            where.append(f"lower(m.tool_name) IN ({','.join('?' * len(tools))})")
            params += [t.lower() for t in tools]
        if agent:
            where.append("s.agent = ?")
            params.append(agent)
        if session_rowid is not None:
            where.append("m.session_rowid = ?")
            params.append(session_rowid)
        columns = ", ".join(f"m.{c} AS {c}" for c in MESSAGE_COLUMNS.split(", "))
        sql = (
            f"SELECT {columns} FROM messages m JOIN sessions s ON s.id = m.session_rowid"
            f" WHERE {' AND '.join(where)} ORDER BY m.ts, m.session_rowid, m.ordinal"
        )
        cache: dict[int, Session] = {}
        for r in self.conn.execute(sql, params):
            message = message_from_row(r)
            sid = message.session_rowid
            if sid not in cache:
                cache[sid] = self.session(sid)  # type: ignore[assignment]
            yield cache[sid], message

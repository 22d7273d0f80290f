"""Reading the index for lists and transcripts: sessions by id or filter, the agent / project /
day tree, a session's messages, the event stream, the counts. SQL only here and in search."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from types import EllipsisType
from typing import Iterator

from indexer.models import Message, Session
from typing import NamedTuple
from indexer.sources import AGENT_NAMES
from indexer.store.connection import index_files
from indexer.store.errors import AmbiguousSessionError  # noqa: F401 - raised here, importable from here
from indexer.store.rows import (
    MESSAGE_COLUMNS,
    SESSION_COLUMNS,
    TOP_LEVEL,
    message_from_row,
    messages_from_rows,
    session_from_row,
)


EVENTS_READ_TOGETHER = 200  # rows of the event stream turned into messages at a time (tool output read per log)


class IndexStats(NamedTuple):
    path: Path
    sessions: int
    messages: int
    files: int
    missing_files: int
    last_indexed: float | None
    size_bytes: int


class ProjectSummary(NamedTuple):
    project_path: str | None
    project_name: str | None
    session_count: int
    last_ts: float | None


def stats(c: sqlite3.Connection, path: Path) -> IndexStats:
    last = c.execute("SELECT value FROM meta WHERE key = 'last_indexed'").fetchone()
    size = sum(p.stat().st_size for p in index_files(path) if p.exists())
    # Messages are counted in meta by each index run: count(*) walks a million rows.
    kept = c.execute("SELECT value FROM meta WHERE key = 'message_count'").fetchone()
    messages = int(kept[0]) if kept else c.execute("SELECT count(*) FROM messages").fetchone()[0]
    return IndexStats(
        path=path,
        sessions=c.execute("SELECT count(*) FROM sessions").fetchone()[0],
        messages=messages,
        files=c.execute("SELECT count(*) FROM files").fetchone()[0],
        missing_files=c.execute("SELECT count(*) FROM files WHERE missing = 1").fetchone()[0],
        last_indexed=float(last[0]) if last else None,
        size_bytes=size,
    )


def session(c: sqlite3.Connection, ref: str | int) -> Session | None:
    """A session by row id, full session id, ``agent:id``, or a unique id prefix."""
    if isinstance(ref, int):
        r = c.execute(f"SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = ?", (ref,)).fetchone()
        return session_from_row(r) if r else None
    agent = None
    if ":" in ref and ref.split(":", 1)[0] in AGENT_NAMES:
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
    c: sqlite3.Connection,
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
    time range, parent (``None`` = top-level only, orphans included: a subagent whose parent is
    not in the index is listed at the top, marked) and title/id text."""
    where: list[str] = ["1=1"]
    params: list[object] = []
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
            where.append(TOP_LEVEL)
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
    return [session_from_row(r) for r in c.execute(sql, params)]


def agents(c: sqlite3.Connection) -> list[tuple[str, int]]:
    return [
        (r[0], r[1])
        for r in c.execute(
            f"SELECT s.agent, count(*) FROM sessions s WHERE {TOP_LEVEL} GROUP BY s.agent ORDER BY s.agent"
        )
    ]


def projects(c: sqlite3.Connection, agent: str) -> list[ProjectSummary]:
    rows = c.execute(
        "SELECT s.project_path, max(s.project_name), count(*), max(coalesce(s.end_ts, s.start_ts))"
        f" FROM sessions s WHERE s.agent = ? AND {TOP_LEVEL}"
        " GROUP BY s.project_path ORDER BY max(coalesce(s.end_ts, s.start_ts)) DESC",
        (agent,),
    )
    return [ProjectSummary(r[0], r[1], r[2], r[3]) for r in rows]


def days(c: sqlite3.Connection, agent: str, project_path: str | None) -> list[tuple[str, int]]:
    """(YYYY-MM-DD in UTC, session count) for a project's top-level sessions, newest first."""
    cond = "s.project_path IS NULL" if project_path is None else "s.project_path = ?"
    params = [agent] + ([] if project_path is None else [project_path])
    rows = c.execute(
        "SELECT date(s.start_ts, 'unixepoch') AS day, count(*) FROM sessions s"
        f" WHERE s.agent = ? AND {cond} AND {TOP_LEVEL}"
        " GROUP BY day ORDER BY day DESC",
        params,
    )
    return [(r[0] or "undated", r[1]) for r in rows]


def sessions_on_day(c: sqlite3.Connection, agent: str, project_path: str | None, day: str) -> list[Session]:
    """A project's top-level sessions that started on ``day`` (UTC, or "undated"), newest first."""
    where = ["s.agent = ?", TOP_LEVEL]
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
    rows = c.execute(
        f"SELECT {SESSION_COLUMNS} FROM sessions s WHERE {' AND '.join(where)} ORDER BY s.start_ts DESC, s.id DESC",
        params,
    )
    return [session_from_row(r) for r in rows]


def messages(c: sqlite3.Connection, session: Session | int, start: int = 0, limit: int | None = None) -> list[Message]:
    """A session's messages in order, from ordinal ``start``."""
    rowid = session.id if isinstance(session, Session) else session
    sql = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_rowid = ? AND ordinal >= ? ORDER BY ordinal"
    params: list = [rowid, start]
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return messages_from_rows(c.execute(sql, params).fetchall(), c)


def message(c: sqlite3.Connection, message_id: int) -> Message | None:
    r = c.execute(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,)).fetchone()
    return message_from_row(r, c) if r else None


def iter_events(
    c: sqlite3.Connection,
    *,
    since: float | None = None,
    until: float | None = None,
    kinds: tuple[str, ...] = (),
    tools: tuple[str, ...] = (),
    agent: str | None = None,
    session_rowid: int | None = None,
) -> Iterator[tuple[Session, Message]]:
    """(Session, Message) pairs in time order: the normalised event stream."""
    where: list[str] = ["1=1"]
    params: list[object] = []
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
    rows = c.execute(sql, params)
    while chunk := rows.fetchmany(EVENTS_READ_TOGETHER):
        for message in messages_from_rows(chunk, c):
            sid = message.session_rowid
            if sid not in cache:
                found = session(c, sid)
                assert found is not None  # a message's session row exists (a foreign key)
                cache[sid] = found
            yield cache[sid], message

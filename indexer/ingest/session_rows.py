"""The ``sessions`` row of a log file's session: read before an append, written after a parse."""

from __future__ import annotations

import sqlite3

from indexer.sources.base import SessionMeta, project_name_of

WORKTREES_FOLDERS = ("/.claude/worktrees/", "\\.claude\\worktrees\\")  # where Claude Code puts them


def is_worktree_of(path: str | None, project_path: str | None) -> bool:
    """Whether ``path`` is a worktree folder Claude Code made inside ``project_path``: a
    subagent working there belongs to the parent's project, not to ``agent-ab1e6e14``."""
    if not path or not project_path:
        return False
    base = project_path.rstrip("/\\")
    return any(path.startswith(base + folder) for folder in WORKTREES_FOLDERS)


def load_meta(conn: sqlite3.Connection, session_rowid: int, meta: SessionMeta) -> None:
    """The session as indexed so far, into ``meta`` (what an appended file's parse starts from)."""
    r = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_rowid,)).fetchone()
    if r is None:
        return
    meta.session_id = r["session_id"]
    meta.parent_session_id = r["parent_session_id"]
    meta.branched_from = r["branched_from"]
    meta.project_path = r["project_path"]
    meta.resume_cwd = r["resume_cwd"]
    meta.git_branch = r["git_branch"]
    meta.model = r["model"]
    meta.title = r["title"]
    meta.title_rank = r["title_rank"]


def upsert_session(conn: sqlite3.Connection, agent: str, path: str, meta: SessionMeta,
                   counts: tuple[int, float | None, float | None] = (0, None, None)) -> tuple[int, bool]:
    """Insert or update the session ``meta`` describes; its row id, and whether it is new. What
    the file does not say (a null) keeps what an earlier file said; a title replaces one of lower
    rank. ``counts``: a new session's message count and first and last times, as its messages
    will make them (an update leaves them: the caller counts them again)."""
    existing = conn.execute(
        "SELECT id, title_rank, project_path FROM sessions WHERE agent = ? AND session_id = ?",
        (agent, meta.session_id),
    ).fetchone()
    project_path = meta.project_path
    if meta.parent_session_id:
        parent = conn.execute(
            "SELECT project_path FROM sessions WHERE agent = ? AND session_id = ?",
            (agent, meta.parent_session_id),
        ).fetchone()
        parent_path = parent["project_path"] if parent else None
        if not project_path or is_worktree_of(project_path, parent_path):
            project_path = parent_path or project_path
    elif project_path:
        _adopt_worktree_subagents(conn, agent, meta.session_id, project_path)
    values = (
        meta.parent_session_id,
        path,
        project_path,
        project_name_of(project_path),
        meta.git_branch or None,
        meta.model,
        meta.branched_from,
        meta.resume_cwd,
    )
    if existing is None:
        cur = conn.execute(
            "INSERT INTO sessions(agent, session_id, parent_session_id, source_path, project_path,"
            " project_name, git_branch, model, branched_from, resume_cwd, title, title_rank,"
            " message_count, start_ts, end_ts) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (agent, meta.session_id, *values, meta.title, meta.title_rank, *counts),
        )
        assert cur.lastrowid is not None  # an INSERT always sets it
        return cur.lastrowid, True
    conn.execute(
        "UPDATE sessions SET parent_session_id = coalesce(?, parent_session_id), source_path = ?,"
        " project_path = coalesce(?, project_path), project_name = coalesce(?, project_name),"
        " git_branch = coalesce(?, git_branch), model = coalesce(?, model),"
        " branched_from = coalesce(?, branched_from), resume_cwd = coalesce(?, resume_cwd) WHERE id = ?",
        (*values, existing["id"]),
    )
    if meta.title and meta.title_rank >= existing["title_rank"]:
        conn.execute(
            "UPDATE sessions SET title = ?, title_rank = ? WHERE id = ?",
            (meta.title, meta.title_rank, existing["id"]),
        )
    return int(existing["id"]), False


def _adopt_worktree_subagents(conn: sqlite3.Connection, agent: str, session_id: str | None, project_path: str) -> None:
    """Subagents stored before their parent keep a worktree folder as their project: give
    them the parent's (see ``is_worktree_of``)."""
    for row in conn.execute(
        "SELECT id, project_path FROM sessions WHERE agent = ? AND parent_session_id = ?",
        (agent, session_id),
    ).fetchall():
        if is_worktree_of(row["project_path"], project_path):
            conn.execute("UPDATE sessions SET project_path = ?, project_name = ? WHERE id = ?",
                         (project_path, project_name_of(project_path), row["id"]))


def store_tokens(conn: sqlite3.Connection, session_rowid: int, meta: SessionMeta) -> None:
    """The file's token totals (``indexer.sources.token_usage``) on its session; a file that
    logs no usage leaves what is there."""
    tokens = meta.tokens
    if tokens is None:
        return
    conn.execute(
        "UPDATE sessions SET input_tokens = ?, output_tokens = ?, cache_write_tokens = ?, cache_read_tokens = ?"
        " WHERE id = ?",
        (*tokens.as_list(), session_rowid),
    )

"""The shell command that resumes a session in its own agent, from its own directory."""

from __future__ import annotations

import shlex

from indexer.models import Session


def resume_command(session: Session, parent: Session | None = None) -> str:
    """``cd <cwd> && <agent resume>``. A subagent cannot be resumed on its own: its parent is."""
    target = parent if (session.parent_session_id and parent is not None) else session
    session_id = target.session_id if target is session or parent else session.parent_session_id
    if session.parent_session_id and parent is None:
        session_id = session.parent_session_id
    if session.agent == "claude-code":
        command = f"claude --resume {shlex.quote(str(session_id))}"
    elif session.agent == "codex":
        command = f"codex resume {shlex.quote(str(session_id))}"
    elif session.agent == "pi":
        command = f"pi --session {shlex.quote(target.source_path)}"
    else:
        raise ValueError(f"unknown agent {session.agent!r}")
    cwd = target.project_path or session.project_path
    return f"cd {shlex.quote(cwd)} && {command}" if cwd else command

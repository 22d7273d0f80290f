"""The shell command that resumes a session in its own agent, from its own directory."""

from __future__ import annotations

import shlex

from indexer.models import Session


def resume_command(session: Session, parent: Session | None = None) -> str:
    """``cd <cwd> && <agent resume>``.

    A Claude Code or Codex subagent cannot be resumed on its own: its parent is (``parent``
    when it is indexed, else the parent's id). A branch or fork (``branched_from``) is a
    session of its own and resumes by itself.
    """
    target, target_id = session, session.session_id
    if session.parent_session_id and session.agent != "pi":
        target = parent or session
        target_id = parent.session_id if parent else session.parent_session_id
    if session.agent == "claude-code":
        command = f"claude --resume {shlex.quote(target_id)}"
    elif session.agent == "codex":
        command = f"codex resume {shlex.quote(target_id)}"
    elif session.agent == "pi":
        command = f"pi --session {shlex.quote(session.source_path)}"
    else:
        raise ValueError(f"unknown agent {session.agent!r}")
    # A session that moved (Claude Code ``relocated``) resumes from where its log went.
    cwd = target.resume_cwd or target.project_path or session.project_path
    return f"cd {shlex.quote(cwd)} && {command}" if cwd else command

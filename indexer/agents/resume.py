"""The shell command that resumes a session in its own agent, from its own directory."""

from __future__ import annotations

from indexer.models import Session
from indexer.sources import agent_by_name


def resume_target(session: Session) -> str:
    """The id of the session a resume opens: a Claude Code or Codex subagent's parent, else
    the session itself."""
    try:
        agent = agent_by_name(session.agent)
    except KeyError:
        return session.session_id
    if session.parent_session_id and agent.subagent_resumes_parent:
        return session.parent_session_id
    return session.session_id


def resume_command(session: Session, parent: Session | None = None) -> str:
    """``cd <cwd> && <agent resume>``, from the agent's template in the registry.

    A Claude Code or Codex subagent cannot be resumed on its own: its parent is (``parent``
    when it is indexed, else the parent's id). A branch or fork (``branched_from``) is a
    session of its own and resumes by itself.
    """
    import shlex  # compiles a pattern at import: a search printed as text never quotes

    try:
        agent = agent_by_name(session.agent)
    except KeyError:
        raise ValueError(f"unknown agent {session.agent!r}") from None
    if not agent.resume:
        return f"# {agent.label} cannot resume a session: {agent.no_resume}"
    target, target_id = session, session.session_id
    if session.parent_session_id and agent.subagent_resumes_parent:
        target = parent or session
        target_id = parent.session_id if parent else session.parent_session_id
    command = agent.resume.format(id=shlex.quote(target_id), session=shlex.quote(target_id.split("/", 1)[0]),
                                  path=shlex.quote(session.source_path))
    # A session that moved (Claude Code ``relocated``) resumes from where its log went.
    cwd = target.resume_cwd or target.project_path or session.project_path
    return f"cd {shlex.quote(cwd)} && {command}" if cwd else command

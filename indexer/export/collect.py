"""What an export holds: the session, its messages and its subagents' (recursively), with
secrets masked unless the user asked to see them. Every writer starts from a ``SessionExport``,
so the formats never disagree on what was left out."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from indexer.output.masking import masked_message, masked_session
from indexer.models import TOOL_RESULT, Message, Session

if TYPE_CHECKING:  # the export modules load only with the export command
    from indexer.index import Index

MAX_SUBAGENT_DEPTH = 3  # a subagent's subagents' subagents: deeper ones are named, not inlined


@dataclass(frozen=True)
class SessionExport:
    session: Session
    messages: tuple[Message, ...]
    subagents: tuple["SessionExport", ...] = ()
    secrets_masked: bool = True
    subagents_left_out: int = 0  # below MAX_SUBAGENT_DEPTH

    def all_sessions(self) -> list["SessionExport"]:
        """This session and every subagent below it, parents first."""
        found = [self]
        for sub in self.subagents:
            found += sub.all_sessions()
        return found


def collect_export(index: Index, session: Session, *, reveal_secrets: bool = False,
                   depth: int = 0) -> SessionExport:
    """``session`` with its messages and subagents from the index, masked unless ``reveal_secrets``."""
    messages = index.messages(session)
    children = index.children(session)
    subagents: tuple[SessionExport, ...] = ()
    left_out = 0
    if depth < MAX_SUBAGENT_DEPTH:
        subagents = tuple(collect_export(index, child, reveal_secrets=reveal_secrets, depth=depth + 1)
                          for child in children)
    else:
        left_out = len(children)
    if not reveal_secrets:
        session = masked_session(session)
        messages = [masked_message(m) for m in messages]
    return SessionExport(session, tuple(messages), subagents, not reveal_secrets, left_out)


def subagent_of(message: Message, subagents: tuple[SessionExport, ...]) -> SessionExport | None:
    """The subagent a Task/Agent tool result reports on (Claude Code's ``toolUseResult.agentId``
    names it), when it is among ``subagents``."""
    if message.kind != TOOL_RESULT or not message.detail or "agentId" not in message.detail:
        return None
    try:
        agent_id = json.loads(message.detail).get("agentId")
    except (ValueError, AttributeError):
        return None
    if not isinstance(agent_id, str) or not agent_id:
        return None
    for sub in subagents:
        if sub.session.session_id in (agent_id, f"agent-{agent_id}"):
            return sub
    return None


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def export_file_name(session: Session, extension: str) -> str:
    """A file name for an export that no log content can steer (``claude-code-1a2b3c4d5e6f.md``)."""
    sid = _UNSAFE_NAME.sub("-", session.session_id).strip(".-")[:36] or "session"
    agent = _UNSAFE_NAME.sub("-", session.agent).strip(".-") or "agent"
    return f"{agent}-{sid}.{extension}"

"""Between a parent session and its subagents: which subagent a parent's Task/Agent call
started, and which call of the parent started a subagent.

A call names its prompt; the subagent's first message is that prompt, and the call's result
names the agent (``{"agentId": …}``, Claude Code's ``agent-<id>`` session). The prompt decides
first (parallel calls are answered out of order); the result after the call is the fallback.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from indexer import Index, Message, Session

SUBAGENT_TOOLS = frozenset({"Task", "Agent"})


def is_subagent_call(message: Message) -> bool:
    return message.kind == "tool_call" and message.tool_name in SUBAGENT_TOOLS


def _json_field(detail: str | None, field: str) -> str | None:
    try:
        value = json.loads(detail or "").get(field)
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, str) and value else None


def _prompt(call: Message) -> str | None:
    return _json_field(call.detail, "prompt")


def _agent_in_result(result: Message) -> str | None:
    agent = _json_field(result.detail, "agentId")
    return f"agent-{agent}" if agent else None


def _first_prompt(index: Index, session: Session) -> str:
    first = next((m for m in index.messages(session, limit=5) if m.role == "user"), None)
    return first.text.strip() if first is not None else ""


def subagent_of_call(index: Index, session: Session, messages: Sequence[Message], call: int) -> Session | None:
    """The subagent the call at ``messages[call]`` started, if it is indexed."""
    children = index.children(session)
    if not children:
        return None
    prompt = (_prompt(messages[call]) or "").strip()
    if prompt:
        for child in children:
            if _first_prompt(index, child) == prompt:
                return child
    by_id = {child.session_id: child for child in children}
    for message in messages[call + 1:]:
        if message.kind == "tool_result" and message.tool_name == messages[call].tool_name:
            agent = _agent_in_result(message)
            if agent in by_id:
                return by_id[agent]
    return None


def call_of_subagent(index: Index, subagent: Session, parent: Session, messages: Sequence[Message]) -> Message | None:
    """The parent's call that started ``subagent`` (None when no call can be told)."""
    prompt = _first_prompt(index, subagent)
    calls = [(i, m) for i, m in enumerate(messages) if is_subagent_call(m)]
    for _, call in calls:
        if prompt and (_prompt(call) or "").strip() == prompt:
            return call
    for i, message in enumerate(messages):
        if message.kind == "tool_result" and _agent_in_result(message) == subagent.session_id:
            earlier = [call for j, call in calls if j < i]
            return earlier[-1] if earlier else None
    return None

"""GitHub Copilot CLI: ``~/.copilot/session-state/<id>.jsonl`` or, in newer versions,
``<id>/events.jsonl`` beside a ``workspace.yaml`` (the session's name and folder).

One event a line, appended: ``{type, data, timestamp}`` with ``session.start`` (``sessionId``,
``context.cwd``/``branch``), ``user.message`` (``content``), ``assistant.message``
(``content``, ``reasoningText``, ``toolRequests[]`` of ``{toolCallId, name, arguments}``),
``tool.execution_start`` / ``tool.execution_complete`` (``toolCallId``, ``success``,
``result``), ``session.model_change`` (``newModel``), ``session.error``. Written from the events
Copilot CLI writes as read by kenn-io/agentsview (MIT) and its test sessions.
"""

from __future__ import annotations

import os
from pathlib import Path

from indexer.sources.base import TITLE_NAMED, ParseOutput, SessionMeta, parse_iso
from indexer.sources.emit import Emitter, parse_records
from indexer.sources.fields import as_dict, as_list, as_str, scalar_text

AGENT = "copilot"


def default_roots() -> list[Path]:
    base = os.environ.get("COPILOT_HOME") or str(Path.home() / ".copilot")
    return [Path(base).expanduser() / "session-state"]


def is_log_file(name: str) -> bool:
    return name.endswith(".jsonl")


def init_meta(path: Path, meta: SessionMeta) -> None:
    meta.session_id = path.parent.name if path.name == "events.jsonl" else path.stem
    if path.name == "events.jsonl":
        _workspace(path.parent / "workspace.yaml", meta)


def _workspace(path: Path, meta: SessionMeta) -> None:
    """``name:`` and ``cwd:`` of the flat ``workspace.yaml`` beside a session's events."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    except (OSError, UnicodeDecodeError):
        return
    for line in lines:
        key, _, value = line.partition(":")
        value = value.strip().strip("'\"")
        if key == "name" and value:
            meta.offer_title(value, TITLE_NAMED, latest_wins=True)
        elif key == "cwd" and value.startswith("/") and not meta.project_path:
            meta.project_path = value


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    return parse_records(AGENT, path, data, first_line_no, meta, init_meta, _event)


def _event(emit: Emitter, record: dict, line_no: int) -> None:
    etype, data = as_str(record.get("type")), as_dict(record.get("data"))
    ts = parse_iso(record.get("timestamp"))
    where = as_str(record.get("id")) or f"line{line_no}"
    if etype == "session.start":
        _start(emit.meta, data)
    elif etype == "user.message":
        text = scalar_text(data.get("content"))
        if not as_str(data.get("source")).startswith("skill-"):
            emit.said("user", text, where, 0, ts)
    elif etype == "assistant.message":
        emit.thought(scalar_text(data.get("reasoningText")), where, "reasoning", ts)
        emit.said("assistant", scalar_text(data.get("content")), where, 0, ts)
        for i, call in enumerate(as_list(data.get("toolRequests"))):
            call = as_dict(call)
            emit.tool_call(as_str(call.get("name")), call.get("arguments"), where, f"call{i}", ts)
    elif etype == "tool.execution_complete":
        result = data.get("result")
        if isinstance(result, dict):
            result = result.get("content", result.get("detailedContent", result))
        emit.tool_result(as_str(data.get("toolName")) or None, result, where, 0, ts,
                         failed=data.get("success") is False)
    elif etype == "session.model_change":
        model = as_str(data.get("newModel"))
        if model:
            emit.meta.model = model
    elif etype == "session.error":
        emit.error(f"Error: {scalar_text(data.get('message')) or 'no details'}", where, 0, ts)
    elif etype == "session.compaction_complete":
        emit.summary(scalar_text(data.get("summaryContent")) or scalar_text(data.get("summary")), where, 0, ts)


def _start(meta: SessionMeta, data: dict) -> None:
    session_id = as_str(data.get("sessionId"))
    if session_id:
        meta.session_id = session_id
    context = as_dict(data.get("context"))
    cwd, branch = as_str(context.get("cwd")), as_str(context.get("branch"))
    if cwd:
        meta.project_path = cwd
    if branch:
        meta.git_branch = branch
    model = as_str(data.get("selectedModel"))
    if model:
        meta.model = model

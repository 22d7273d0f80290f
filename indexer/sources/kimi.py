"""Kimi CLI: ``~/.kimi/sessions/<project hash>/<session id>/wire.jsonl``, appended; newer
versions under ``~/.kimi-code/sessions/wd_<folder>_<hash>/<session>/agents/<agent>/wire.jsonl``.

Two record shapes, both read:
- the legacy "wire": ``{"type": "metadata"}``, then ``{timestamp (s), message: {type, payload}}``
  with ``TurnBegin`` (``user_input[]`` text parts), ``ContentPart`` (``text`` or ``think``),
  ``ToolCall`` (``function.name`` / ``arguments``), ``ToolResult`` (``return_value.is_error`` /
  ``output``), ``StatusUpdate``, ``TurnEnd``;
- the newer records: ``config.update`` (``cwd``, ``modelAlias``), ``turn.prompt`` /
  ``turn.steer`` (``input[]``), ``context.append_loop_event`` whose ``event`` is
  ``content.part`` (``part``), ``tool.call`` (``name``, ``args``, ``toolCallId``),
  ``tool.result`` (``result.output`` / ``isError``) or ``step.end`` (``model``); times in
  ``time`` (ms).
Written from the wire records in kenn-io/agentsview's ``kimi_test.go`` (MIT) and its reader.
"""

from __future__ import annotations

from pathlib import Path

from indexer.sources.base import ParseOutput, SessionMeta, flatten_content, parse_iso
from indexer.sources.emit import Emitter, parse_records
from indexer.sources.fields import as_dict, as_str, scalar_text

AGENT = "kimi"


def default_roots() -> list[Path]:
    return [Path.home() / ".kimi" / "sessions", Path.home() / ".kimi-code" / "sessions"]


def is_log_file(name: str) -> bool:
    return name == "wire.jsonl"


def init_meta(path: Path, meta: SessionMeta) -> None:
    folder = path.parent
    if folder.parent.name == "agents":  # <session>/agents/<agent>/wire.jsonl
        meta.session_id = f"{folder.parent.parent.name}/{folder.name}"
    else:
        meta.session_id = folder.name


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    return parse_records(AGENT, path, data, first_line_no, meta, init_meta, _line)


def _line(emit: Emitter, record: dict, line_no: int) -> None:
    """A wire line (``{"message": {"type", "payload"}}``) or a record of the older shape."""
    ts = _time_of(record)
    message = as_dict(record.get("message"))
    if message:
        _wire(emit, as_str(message.get("type")), as_dict(message.get("payload")), f"line{line_no}", ts)
    else:
        _record(emit, record, f"line{line_no}", ts)


def _time_of(record: dict) -> float | None:
    seconds = record.get("timestamp")
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
        return parse_iso(seconds)
    for key in ("time", "created_at"):
        if isinstance(record.get(key), (int, float)):
            return parse_iso(record[key])
    return None


def _wire(emit: Emitter, mtype: str, payload: dict, where: str, ts: float | None) -> None:
    if mtype == "TurnBegin":
        emit.said("user", flatten_content(payload.get("user_input"), images=False), where, 0, ts)
    elif mtype == "ContentPart":
        _part(emit, payload, where, ts)
    elif mtype == "ToolCall":
        function = as_dict(payload.get("function"))
        emit.tool_call(as_str(function.get("name")), function.get("arguments"), where, 0, ts)
    elif mtype == "ToolResult":
        value = as_dict(payload.get("return_value"))
        emit.tool_result(None, value.get("output"), where, 0, ts, failed=value.get("is_error") is True)


def _record(emit: Emitter, record: dict, where: str, ts: float | None) -> None:
    rtype = as_str(record.get("type"))
    if rtype == "config.update":
        cwd, model = as_str(record.get("cwd")), as_str(record.get("modelAlias"))
        if cwd:
            emit.meta.project_path = cwd
        if model:
            emit.meta.model = model
    elif rtype in ("turn.prompt", "turn.steer"):
        emit.said("user", flatten_content(record.get("input"), images=False), where, 0, ts)
    elif rtype == "context.append_loop_event":
        _loop_event(emit, as_dict(record.get("event")), where, ts)


def _loop_event(emit: Emitter, event: dict, where: str, ts: float | None) -> None:
    etype = as_str(event.get("type"))
    if etype == "content.part":
        _part(emit, as_dict(event.get("part")), where, ts)
    elif etype == "tool.call":
        emit.tool_call(as_str(event.get("name")), event.get("args"), where, 0, ts)
    elif etype == "tool.result":
        result = as_dict(event.get("result"))
        output = result.get("output") or result.get("message")
        emit.tool_result(None, output, where, 0, ts, failed=result.get("isError") is True)
    elif etype == "step.end":
        model = as_str(event.get("model"))
        if model:
            emit.meta.model = model


def _part(emit: Emitter, part: dict, where: str, ts: float | None) -> None:
    ptype = as_str(part.get("type"))
    if ptype == "text":
        emit.said("assistant", scalar_text(part.get("text")), where, 0, ts)
    elif ptype == "think":
        emit.thought(scalar_text(part.get("think")) or scalar_text(part.get("text")), where, 0, ts)

"""Qwen Code: ``~/.qwen/projects/<folder, encoded>/chats/<session id>.jsonl``, appended.

A Claude-like envelope (``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``, ``cwd``,
``gitBranch``, ``type`` user / assistant / tool_result / system) around a Gemini-style
``message`` (``role`` user / model, ``parts[]``: ``text`` (``thought: true`` for reasoning),
``functionCall {id, name, args}``, ``functionResponse {id, name, response}``). Written from
Qwen Code's ``packages/core/src/services/chatRecordingService.ts`` as read by
kenn-io/agentsview (MIT).
"""

from __future__ import annotations

from pathlib import Path

from indexer.sources.base import ParseOutput, SessionMeta, parse_iso
from indexer.sources.emit import Emitter, parse_records
from indexer.sources.fields import as_dict, as_list, as_str, scalar_text

AGENT = "qwen"


def default_roots() -> list[Path]:
    return [Path.home() / ".qwen" / "projects"]


def is_log_file(name: str) -> bool:
    return name.endswith(".jsonl")


def init_meta(path: Path, meta: SessionMeta) -> None:
    meta.session_id = path.stem


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    return parse_records(AGENT, path, data, first_line_no, meta, init_meta, _record)


def _record(emit: Emitter, record: dict, line_no: int) -> None:
    meta = emit.meta
    for field, attr in (("sessionId", "session_id"), ("cwd", "project_path"), ("gitBranch", "git_branch"),
                        ("model", "model")):
        value = as_str(record.get(field))
        if value:
            setattr(meta, attr, value)
    where = as_str(record.get("uuid")) or f"line{line_no}"
    ts = parse_iso(record.get("timestamp"))
    rtype = as_str(record.get("type"))
    message = as_dict(record.get("message"))
    if rtype == "system":
        payload = as_dict(record.get("systemPayload"))
        emit.summary(scalar_text(payload.get("summary")), where, 0, ts)
        return
    role = "assistant" if as_str(message.get("role")) == "model" or rtype == "assistant" else "user"
    for i, part in enumerate(as_list(message.get("parts"))):
        _part(emit, role, as_dict(part), where, i, ts)


def _part(emit: Emitter, role: str, part: dict, where: str, i: int, ts: float | None) -> None:
    if "functionCall" in part:
        call = as_dict(part.get("functionCall"))
        emit.tool_call(as_str(call.get("name")), call.get("args"), where, i, ts)
    elif "functionResponse" in part:
        response = as_dict(part.get("functionResponse"))
        body = as_dict(response.get("response"))
        output = body.get("output", body.get("error", body))
        emit.tool_result(as_str(response.get("name")), output, where, i, ts, failed="error" in body)
    elif part.get("thought") is True:
        emit.thought(scalar_text(part.get("text")), where, i, ts)
    elif "text" in part:
        emit.said(role, scalar_text(part.get("text")), where, i, ts)

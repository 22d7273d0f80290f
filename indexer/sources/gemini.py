"""Gemini CLI: ``~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.json``.

Two shapes, both read whole (the registry's ``reading = "whole"``):
- one JSON document rewritten on every message: ``{sessionId, projectHash, startTime,
  lastUpdated, messages: [...]}``;
- newer versions' JSONL: a header line with ``sessionId``/``projectHash``/``startTime``, then one
  message a line; a message written again with the same ``id`` replaces the earlier one, and a
  ``{"$set": {...}}`` line updates the header.

A message: ``type`` user / gemini / info / error / warning, ``content`` (a string or Gemini
``Part``s), ``thoughts[]`` ({subject, description}), ``toolCalls[]`` ({id, name, args, status,
result[].functionResponse.response.output}), ``model``, ``tokens``. The log does not say the
project folder, only its hash; newer versions keep it in ``<project dir>/.project_root``.
Written from gemini-cli's ``packages/core/src/services/chatRecordingService.ts`` and the
fixtures of kenn-io/agentsview (MIT).
"""

from __future__ import annotations

import os
from pathlib import Path

from indexer.sources.base import ParseOutput, SessionMeta, iter_json_lines, load_whole_json, parse_iso
from indexer.sources.emit import Emitter
from indexer.sources.fields import as_dict, as_list, as_str, scalar_text

AGENT = "gemini"
_NOTICES = {"error": "Error", "warning": "Warning"}


def default_roots() -> list[Path]:
    base = os.environ.get("GEMINI_CLI_HOME")
    home = Path(base).expanduser() / ".gemini" if base else Path.home() / ".gemini"
    return [home / "tmp"]


def is_log_file(name: str) -> bool:
    return name.startswith("session-") and name.endswith((".json", ".jsonl"))


def is_whole_document(path: Path) -> bool:
    return True


def init_meta(path: Path, meta: SessionMeta) -> None:
    meta.session_id = path.stem.removeprefix("session-")
    root = path.parent.parent / ".project_root"
    try:
        folder = root.read_text(encoding="utf-8").strip() if root.is_file() else ""
    except (OSError, UnicodeDecodeError):
        folder = ""
    if folder.startswith("/"):
        meta.project_path = folder


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    out = ParseOutput()
    init_meta(path, meta)
    document = load_whole_json(data) if data.lstrip()[:1] == b"{" else None
    if isinstance(document, dict) and ("messages" in document or "sessionId" in document):
        _header(document, meta)
        records = [r for r in as_list(document.get("messages")) if isinstance(r, dict)]
    else:
        records = _jsonl_records(data, out, meta)
    emit = Emitter(AGENT, meta, out)
    for position, record in enumerate(records):
        _message(emit, record, position)
    return out


def _header(record: dict, meta: SessionMeta) -> None:
    session_id = as_str(record.get("sessionId"))
    if session_id:
        meta.session_id = session_id


def _jsonl_records(data: bytes, out: ParseOutput, meta: SessionMeta) -> list[dict]:
    """The messages of a JSONL session in order, each the last version written of it."""
    by_id: dict[str, int] = {}
    records: list[dict] = []
    for _, record in iter_json_lines(data, out):
        if not isinstance(record, dict):
            continue
        if "sessionId" in record and "type" not in record:
            _header(record, meta)
            continue
        message_id = as_str(record.get("id"))
        if message_id and message_id in by_id:
            records[by_id[message_id]] = record
            continue
        if message_id:
            by_id[message_id] = len(records)
        records.append(record)
    return records


def _message(emit: Emitter, record: dict, position: int) -> None:
    mtype = as_str(record.get("type"))
    where = as_str(record.get("id")) or f"#{position}"
    ts = parse_iso(record.get("timestamp"))
    model = as_str(record.get("model"))
    if model:
        emit.meta.model = model
    if mtype == "user":
        emit.said("user", _text(record.get("content")), where, 0, ts)
    elif mtype == "gemini":
        for i, thought in enumerate(as_list(record.get("thoughts"))):
            thought = as_dict(thought)
            subject, text = scalar_text(thought.get("subject")), scalar_text(thought.get("description"))
            emit.thought(f"{subject}\n{text}" if subject and text else subject or text, where, f"thought{i}", ts)
        emit.said("assistant", _text(record.get("content")), where, 0, ts)
        for i, call in enumerate(as_list(record.get("toolCalls"))):
            _tool_call(emit, as_dict(call), where, i, ts)
    elif mtype in _NOTICES:
        emit.error(f"{_NOTICES[mtype]}: {_text(record.get('content'))}", where, 0, ts)
    # "info" lines (a tip, a model switch) are the CLI talking to itself: skipped.


def _text(content: object) -> str:
    """A string, or Gemini ``Part``s: their ``text`` (a function call or response is not text)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    return "\n".join(scalar_text(as_dict(part).get("text")) for part in as_list(content)
                     if isinstance(part, dict) and "text" in part)


def _tool_call(emit: Emitter, call: dict, where: str, i: int, ts: float | None) -> None:
    name = as_str(call.get("name")) or as_str(call.get("displayName"))
    emit.tool_call(name, call.get("args"), where, f"call{i}", ts)
    outputs = []
    for result in as_list(call.get("result")):
        response = as_dict(as_dict(as_dict(result).get("functionResponse")).get("response"))
        value = response.get("output", response.get("error"))
        if value is not None:
            outputs.append(value if isinstance(value, str) else scalar_text(value))
    if not outputs and isinstance(call.get("resultDisplay"), str):
        outputs.append(call["resultDisplay"])
    if outputs:
        emit.tool_result(name, "\n".join(outputs), where, f"result{i}", ts,
                         failed=as_str(call.get("status")) in ("error", "cancelled"))

"""Pi coding agent: ``~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``, v1 to v3.

v2+ files are trees (entries with id/parentId). We index every entry in file order: an
abandoned branch is still history someone may search for.
"""

from __future__ import annotations

import os
from pathlib import Path

from indexer.models import SUMMARY, TEXT, THINKING, TOOL_CALL, TOOL_RESULT
from indexer.sources.base import (
    TEXT_LIMIT,
    TITLE_FIRST_PROMPT,
    TITLE_NAMED,
    clip_tool_output,
    TOOL_RESULT_HEAD,
    TOOL_RESULT_TAIL,
    ParseOutput,
    ParsedMessage,
    SessionMeta,
    cut_middle,
    dedup_key,
    describe_tool_call,
    flatten_content,
    iter_json_lines,
    parse_iso,
    strip_binary,
    to_json,
)

AGENT = "pi"


def default_roots() -> list[Path]:
    base = os.environ.get("PI_CODING_AGENT_DIR") or str(Path.home() / ".pi" / "agent")
    return [Path(base).expanduser() / "sessions"]


def is_log_file(name: str) -> bool:
    return name.endswith(".jsonl")


def init_meta(path: Path, meta: SessionMeta) -> None:
    stem = path.stem
    meta.session_id = stem.split("_", 1)[1] if "_" in stem else stem


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    out = ParseOutput()
    if meta.session_id is None:
        init_meta(path, meta)
    for line_no, rec in iter_json_lines(data, out, first_line_no):
        if not isinstance(rec, dict):
            continue
        etype = rec.get("type")
        entry_key = rec.get("id") if state.get("version", 1) >= 2 and rec.get("id") else f"line{line_no}"
        ts = parse_iso(rec.get("timestamp"))
        if etype == "session":
            state["version"] = int(rec.get("version") or 1)
            if rec.get("id"):
                meta.session_id = str(rec["id"])
            if rec.get("cwd"):
                meta.project_path = rec["cwd"]
            if rec.get("modelId"):
                meta.model = rec["modelId"]
            parent = rec.get("parentSession") or rec.get("branchedFrom")
            if parent:
                meta.parent_session_id = _session_id_from(str(parent))
        elif etype == "message":
            _message(rec.get("message") or {}, entry_key, ts, meta, out)
        elif etype == "model_change":
            if rec.get("modelId"):
                meta.model = rec["modelId"]
        elif etype in ("compaction", "branch_summary"):
            text = str(rec.get("summary") or "")
            if text:
                out.messages.append(ParsedMessage("system", SUMMARY, text, _key(meta, entry_key, 0), ts=ts))
        elif etype == "session_info":
            meta.offer_title(str(rec.get("name") or ""), TITLE_NAMED)
        elif etype == "custom_message":
            text = flatten_content(rec.get("content"))
            if text.strip():
                out.messages.append(ParsedMessage("meta", TEXT, cut_middle(text, TOOL_RESULT_HEAD, TOOL_RESULT_TAIL),
                                                  _key(meta, entry_key, 0), ts=ts, indexed=False))
        # label, custom, thinking_level_change and unknown types: bookkeeping, skipped.
    return out


def _session_id_from(parent: str) -> str:
    """``parentSession`` is a file path in some versions and an id in others."""
    stem = Path(parent).stem if ("/" in parent or parent.endswith(".jsonl")) else parent
    return stem.split("_", 1)[1] if "_" in stem else stem


def _key(meta: SessionMeta, entry_key: str, index: int) -> str:
    return dedup_key(AGENT, meta.session_id, entry_key, index)


def _message(msg: dict, entry_key: str, entry_ts: float | None, meta: SessionMeta, out: ParseOutput) -> None:
    role = msg.get("role")
    ts = parse_iso(msg.get("timestamp")) or entry_ts
    content = msg.get("content")
    if role == "user":
        text = strip_binary(flatten_content(content))
        if text.strip():
            meta.offer_title(text, TITLE_FIRST_PROMPT)
            out.messages.append(ParsedMessage("user", TEXT, cut_middle(text, TEXT_LIMIT // 2, TEXT_LIMIT // 2),
                                              _key(meta, entry_key, 0), ts=ts))
    elif role == "assistant":
        if msg.get("model"):
            meta.model = msg["model"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for i, block in enumerate(content or []):
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text" and str(block.get("text", "")).strip():
                text = strip_binary(str(block["text"]))
                out.messages.append(ParsedMessage("assistant", TEXT, cut_middle(text, TEXT_LIMIT // 2, TEXT_LIMIT // 2),
                                                  _key(meta, entry_key, i), ts=ts))
            elif btype == "thinking" and str(block.get("thinking", "")).strip():
                out.messages.append(ParsedMessage("assistant", THINKING, str(block["thinking"]), _key(meta, entry_key, i), ts=ts))
            elif btype == "toolCall":
                name = str(block.get("name") or "tool")
                args = block.get("arguments")
                out.messages.append(ParsedMessage("assistant", TOOL_CALL, describe_tool_call(name, args),
                                                  _key(meta, entry_key, i), tool_name=name, ts=ts, detail=to_json(args)))
    elif role == "toolResult":
        text = flatten_content(content)
        if msg.get("isError"):
            text = "[error] " + text
        out.messages.append(ParsedMessage("tool", TOOL_RESULT, clip_tool_output(text),
                                          _key(meta, entry_key, 0), tool_name=msg.get("toolName"), ts=ts, indexed=False))
    elif role == "bashExecution":
        command = str(msg.get("command") or "")
        out.messages.append(ParsedMessage("user", TOOL_CALL, f"[bash] {command}", _key(meta, entry_key, 0),
                                          tool_name="bash", ts=ts))
        output = str(msg.get("output") or "")
        if msg.get("exitCode") not in (None, 0):
            output = f"[exit {msg.get('exitCode')}] {output}"
        out.messages.append(ParsedMessage("tool", TOOL_RESULT, clip_tool_output(output),
                                          _key(meta, entry_key, 1), tool_name="bash", ts=ts, indexed=False))
    elif role in ("branchSummary", "compactionSummary"):
        text = str(msg.get("summary") or flatten_content(content))
        if text.strip():
            out.messages.append(ParsedMessage("system", SUMMARY, text, _key(meta, entry_key, 0), ts=ts))
    elif role == "custom":
        text = flatten_content(content)
        if text.strip():
            out.messages.append(ParsedMessage("meta", TEXT, cut_middle(text, TOOL_RESULT_HEAD, TOOL_RESULT_TAIL),
                                              _key(meta, entry_key, 0), ts=ts, indexed=False))

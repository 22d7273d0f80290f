"""Codex CLI: the TypeScript-era ``.json``, early bare-header JSONL and the envelope format."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from indexer.models import SUMMARY, TEXT, THINKING, TOOL_CALL, TOOL_RESULT
from indexer.sources.base import (
    TEXT_LIMIT,
    TITLE_FIRST_PROMPT,
    clip_tool_output,
    TOOL_RESULT_HEAD,
    TOOL_RESULT_TAIL,
    ParseOutput,
    ParsedMessage,
    SessionMeta,
    cut_middle,
    dedup_key,
    describe_tool_call,
    digest,
    flatten_content,
    iter_json_lines,
    load_whole_json,
    parse_iso,
    strip_binary,
    to_json,
)

AGENT = "codex"

_FILE_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", re.I)
_FILE_TIME = re.compile(r"rollout-(\d{4}-\d{2}-\d{2})(?:T(\d{2})-(\d{2})-(\d{2}))?")
# Text the CLI injects as user/developer messages: not typed by the human.
_INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<user_shell_command>",
    "<turn_aborted>",
)
_ENVELOPE_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}


def default_roots() -> list[Path]:
    base = Path(os.environ.get("CODEX_HOME") or str(Path.home() / ".codex")).expanduser()
    return [base / "sessions", base / "archived_sessions"]


def is_log_file(name: str) -> bool:
    return name.startswith("rollout-") and name.endswith((".jsonl", ".json"))


def is_whole_document(path: Path) -> bool:
    """The TS-era files are one pretty-printed object, rewritten whole on each turn."""
    return path.suffix == ".json"


def file_start_time(path: Path) -> float | None:
    """Codex names files by local start time; a fallback when the records carry none."""
    m = _FILE_TIME.search(path.name)
    if not m:
        return None
    date, hh, mm, ss = m.groups()
    try:
        dt = datetime.strptime(f"{date} {hh or '00'}:{mm or '00'}:{ss or '00'}", "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    return dt.astimezone(timezone.utc).timestamp()  # naive → the machine's local zone


def init_meta(path: Path, meta: SessionMeta) -> None:
    m = _FILE_UUID.search(path.name)
    meta.session_id = m.group(1) if m else path.stem


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    out = ParseOutput()
    if meta.session_id is None:
        init_meta(path, meta)
    if is_whole_document(path) or state.get("_whole"):
        _parse_ts_era(data, state, meta, out)
        return out
    for line_no, rec in iter_json_lines(data, out, first_line_no):
        if not isinstance(rec, dict):
            continue
        rtype = rec.get("type")
        if "payload" in rec and rtype in _ENVELOPE_TYPES or rtype in ("world_state",):
            _envelope(rec, line_no, state, meta, out)
        elif rec.get("record_type"):
            continue  # early JSONL state markers
        elif line_no == 1 and "id" in rec and rtype is None:
            _header(rec, state, meta)
        elif rtype in ("message", "reasoning", "function_call", "function_call_output",
                       "custom_tool_call", "custom_tool_call_output", "local_shell_call",
                       "web_search_call"):
            _response_item(rec, parse_iso(state.get("header_ts")), line_no, state, meta, out)
    return out


def _header(rec: dict, state: dict, meta: SessionMeta) -> None:
    state["thread_id"] = str(rec["id"])
    meta.session_id = str(rec["id"])
    state["header_ts"] = rec.get("timestamp")
    git = rec.get("git")
    if isinstance(git, dict) and git.get("branch"):
        meta.git_branch = git["branch"]


def _parse_ts_era(data: bytes, state: dict, meta: SessionMeta, out: ParseOutput) -> None:
    """One JSON document; ingest also sends here a pretty-printed document with a .jsonl name."""
    doc = load_whole_json(data)
    if not isinstance(doc, dict):
        out.bad_lines += 1
        out.first_bad_line = 1
        return
    session = doc.get("session") or {}
    if isinstance(session, dict):
        if session.get("id"):
            meta.session_id = str(session["id"])
            state["thread_id"] = meta.session_id
        state["header_ts"] = session.get("timestamp")
    ts = parse_iso(state.get("header_ts"))
    for i, item in enumerate(doc.get("items") or []):
        if isinstance(item, dict):
            _response_item(item, ts, i + 1, state, meta, out)


def _envelope(rec: dict, line_no: int, state: dict, meta: SessionMeta, out: ParseOutput) -> None:
    rtype = rec.get("type")
    payload = rec.get("payload") or {}
    if not isinstance(payload, dict):
        return
    ts = parse_iso(rec.get("timestamp"))
    if rtype == "session_meta":
        if "thread_id" not in state and payload.get("id"):
            # The first session_meta names the thread; later ones belong to forks/resumes.
            state["thread_id"] = str(payload["id"])
            meta.session_id = state["thread_id"]
            if payload.get("cwd"):
                meta.project_path = payload["cwd"]
            git = payload.get("git")
            if isinstance(git, dict) and git.get("branch"):
                meta.git_branch = git["branch"]
            source = payload.get("source")
            if isinstance(source, dict):
                spawn = (source.get("subagent") or {}).get("thread_spawn") if isinstance(source.get("subagent"), dict) else None
                if isinstance(spawn, dict) and spawn.get("parent_thread_id"):
                    meta.parent_session_id = str(spawn["parent_thread_id"])
                    nick = spawn.get("agent_nickname") or payload.get("agent_nickname")
                    role = spawn.get("agent_role") or payload.get("agent_role")
                    if nick or role:
                        meta.offer_title(" ".join(str(x) for x in (role, nick) if x), 3)
    elif rtype == "turn_context":
        if payload.get("model"):
            meta.model = payload["model"]
        if payload.get("cwd") and not meta.project_path:
            meta.project_path = payload["cwd"]
    elif rtype == "response_item":
        _response_item(payload, ts, line_no, state, meta, out, envelope_ts=rec.get("timestamp"))
    elif rtype == "compacted":
        text = str(payload.get("message") or "")
        if text:
            out.messages.append(
                ParsedMessage("system", SUMMARY, text, dedup_key(AGENT, meta.session_id, "compacted", rec.get("timestamp"), digest(text)), ts=ts)
            )
    # event_msg duplicates response items (user_message, agent_message, reasoning): skipped.


def _response_item(
    item: dict,
    ts: float | None,
    line_no: int,
    state: dict,
    meta: SessionMeta,
    out: ParseOutput,
    envelope_ts: str | None = None,
) -> None:
    itype = item.get("type")
    thread = state.get("thread_id") or meta.session_id

    def key(*extra: object) -> str:
        # Forks and resumes copy items into new files; the item's own content and time
        # identify it across copies.
        return dedup_key(AGENT, thread, envelope_ts or line_no, itype, *extra)

    call_names: dict[str, str] = state.setdefault("call_names", {})
    if itype == "message":
        role = item.get("role")
        text = strip_binary(flatten_content(item.get("content")))
        if not text.strip():
            return
        if role in ("developer", "system") or text.lstrip().startswith(_INJECTED):
            out.messages.append(
                ParsedMessage("meta", TEXT, cut_middle(text, TOOL_RESULT_HEAD, TOOL_RESULT_TAIL), key(digest(text)), ts=ts, indexed=False)
            )
            return
        role = "assistant" if role == "assistant" else "user"
        if role == "user":
            meta.offer_title(text, TITLE_FIRST_PROMPT)
        out.messages.append(
            ParsedMessage(role, TEXT, cut_middle(text, TEXT_LIMIT // 2, TEXT_LIMIT // 2), key(digest(text)), ts=ts)
        )
    elif itype == "reasoning":
        parts = [s.get("text", "") for s in item.get("summary") or [] if isinstance(s, dict)]
        text = "\n".join(p for p in parts if p)
        if text.strip():  # encrypted_content is never indexed
            out.messages.append(ParsedMessage("assistant", THINKING, text, key(digest(text)), ts=ts))
    elif itype in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
        name = str(item.get("name") or {"local_shell_call": "shell", "web_search_call": "web_search"}.get(itype, "tool"))
        if itype == "function_call":
            raw = item.get("arguments")
            try:
                args: Any = json.loads(raw) if isinstance(raw, str) else raw
            except ValueError:
                args = raw
        elif itype == "custom_tool_call":
            args = item.get("input")
        else:
            args = item.get("action") or {}
        call_id = str(item.get("call_id") or item.get("id") or "")
        if call_id:
            call_names[call_id] = name
        out.messages.append(
            ParsedMessage("assistant", TOOL_CALL, describe_tool_call(name, args), key(call_id or digest(str(args))),
                          tool_name=name, ts=ts, detail=to_json(args))
        )
    elif itype in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output")
        if isinstance(output, str) and output.startswith("{"):
            try:
                decoded = json.loads(output)
                if isinstance(decoded, dict) and "output" in decoded:
                    output = decoded["output"]
            except ValueError:
                pass
        text = clip_tool_output(flatten_content(output) if not isinstance(output, str) else output)
        call_id = str(item.get("call_id") or "")
        out.messages.append(
            ParsedMessage("tool", TOOL_RESULT, text, key(call_id, "out"),
                          tool_name=call_names.get(call_id), ts=ts, indexed=False)
        )
    if len(call_names) > 500:
        for k in list(call_names)[:-500]:
            del call_names[k]

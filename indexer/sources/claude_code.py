"""Claude Code: ``~/.claude/projects/<slug>/<sessionId>.jsonl`` and both subagent layouts."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from indexer.models import SUMMARY, TEXT, THINKING, TOOL_CALL, TOOL_RESULT
from indexer.sources.base import (
    TEXT_LIMIT,
    TITLE_AI,
    TITLE_FIRST_PROMPT,
    TITLE_SUMMARY,
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
    parse_iso,
    strip_binary,
    to_json,
)

AGENT = "claude-code"

_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.DOTALL)
_OUTPUT_TAGS = ("<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>")
_INJECTED_PREFIXES = (
    "Caveat: The messages below were generated",
    "<system-reminder>",
    "<local-command-caveat>",
    "[Request interrupted",
    "<ide_opened_file>",
    "<ide_selection>",
    "<user-prompt-submit-hook>",
)
_MAX_TOOL_NAMES = 500


def default_roots() -> list[Path]:
    base = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    return [Path(base).expanduser() / "projects"]


def is_log_file(name: str) -> bool:
    """By file name alone: the scan calls this for every file. Memory notes (*.md) are not logs."""
    return name.endswith(".jsonl")


def session_identity(path: Path) -> tuple[str, str | None]:
    """(session id, parent session id) from where the file sits."""
    stem = path.stem
    if path.parent.name == "subagents":
        return stem, path.parent.parent.name
    return stem, None  # flat agent-<hex>.jsonl learn their parent from the records


def init_meta(path: Path, meta: SessionMeta) -> None:
    session_id, parent = session_identity(path)
    meta.session_id = session_id
    if parent:
        meta.parent_session_id = parent
        sidecar = path.with_name(path.stem + ".meta.json")
        try:
            info = json.loads(sidecar.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            info = None
        if isinstance(info, dict):
            label = ": ".join(str(info[k]) for k in ("agentType", "description") if info.get(k))
            meta.offer_title(label, TITLE_AI)


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    """Parse complete lines ``data`` (starting at ``first_line_no``) of one Claude Code file."""
    out = ParseOutput()
    if meta.session_id is None:
        init_meta(path, meta)
    tool_names: dict[str, str] = state.setdefault("tool_names", {})
    for line_no, rec in iter_json_lines(data, out, first_line_no):
        if not isinstance(rec, dict):
            continue
        rtype = rec.get("type")
        if rtype in ("user", "assistant", "system"):
            _learn_envelope(rec, meta, path)
        if rtype == "user":
            _user(rec, line_no, out, meta, tool_names)
        elif rtype == "assistant":
            _assistant(rec, line_no, out, meta, tool_names)
        elif rtype == "system":
            _system(rec, line_no, out)
        elif rtype == "summary":
            text = str(rec.get("summary") or "")
            if text:
                meta.offer_title(text, TITLE_SUMMARY)
                out.messages.append(
                    ParsedMessage(
                        "system",
                        SUMMARY,
                        text,
                        dedup_key(AGENT, "summary", meta.session_id, rec.get("leafUuid"), digest(text)),
                    )
                )
        elif rtype == "ai-title":
            meta.offer_title(str(rec.get("aiTitle") or rec.get("title") or ""), TITLE_AI)
        # Everything else is bookkeeping (snapshots, queue operations, progress...): skipped.
    if len(tool_names) > _MAX_TOOL_NAMES:
        for key in list(tool_names)[: len(tool_names) - _MAX_TOOL_NAMES]:
            del tool_names[key]
    return out


def _learn_envelope(rec: dict, meta: SessionMeta, path: Path) -> None:
    if rec.get("cwd") and not meta.project_path:
        meta.project_path = rec["cwd"]
    if rec.get("gitBranch"):
        meta.git_branch = rec["gitBranch"]
    if (
        meta.parent_session_id is None
        and path.stem.startswith("agent-")
        and rec.get("sessionId")
        and rec["sessionId"] != meta.session_id
    ):
        meta.parent_session_id = rec["sessionId"]


def _key(rec: dict, line_no: int, index: int) -> str:
    return dedup_key(AGENT, rec.get("uuid") or f"line{line_no}", index)


def _user(rec: dict, line_no: int, out: ParseOutput, meta: SessionMeta, tool_names: dict) -> None:
    msg = rec.get("message") or {}
    content = msg.get("content")
    ts = parse_iso(rec.get("timestamp"))
    is_meta = bool(rec.get("isMeta"))
    if rec.get("isCompactSummary"):
        text = flatten_content(content)
        out.messages.append(ParsedMessage("system", SUMMARY, text, _key(rec, line_no, 0), ts=ts))
        return
    if isinstance(content, str):
        _user_text(content, rec, line_no, 0, ts, is_meta, out, meta)
        return
    if not isinstance(content, list):
        return
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text":
            _user_text(str(block.get("text", "")), rec, line_no, i, ts, is_meta, out, meta)
        elif btype == "tool_result":
            body = flatten_content(block.get("content"))
            if block.get("is_error"):
                body = "[error] " + body
            extra = rec.get("toolUseResult")
            detail = None
            if isinstance(extra, dict) and extra.get("agentId"):
                detail = json.dumps({"agentId": extra["agentId"]})
            out.messages.append(
                ParsedMessage(
                    "tool",
                    TOOL_RESULT,
                    clip_tool_output(body),
                    _key(rec, line_no, i),
                    tool_name=tool_names.get(str(block.get("tool_use_id"))),
                    ts=ts,
                    detail=detail,
                    indexed=False,
                )
            )
        elif btype == "image":
            out.messages.append(
                ParsedMessage("user", TEXT, "[image]", _key(rec, line_no, i), ts=ts, indexed=False)
            )


def _user_text(
    text: str,
    rec: dict,
    line_no: int,
    index: int,
    ts: float | None,
    is_meta: bool,
    out: ParseOutput,
    meta: SessionMeta,
) -> None:
    if not text.strip():
        return
    key = _key(rec, line_no, index)
    command = _COMMAND_NAME.search(text)
    if command:
        args = _COMMAND_ARGS.search(text)
        typed = command.group(1).strip() + (" " + args.group(1).strip() if args and args.group(1).strip() else "")
        meta.offer_title(typed, TITLE_FIRST_PROMPT)
        out.messages.append(ParsedMessage("user", TEXT, typed, key, ts=ts))
        return
    bash = _BASH_INPUT.search(text)
    if bash:
        out.messages.append(
            ParsedMessage("user", TOOL_CALL, f"[Bash] {bash.group(1).strip()}", key, tool_name="Bash", ts=ts)
        )
        return
    if is_meta or text.lstrip().startswith(_OUTPUT_TAGS) or text.lstrip().startswith(_INJECTED_PREFIXES):
        body = clip_tool_output(text)
        out.messages.append(ParsedMessage("meta", TEXT, body, key, ts=ts, indexed=False))
        return
    text = cut_middle(strip_binary(text), TEXT_LIMIT // 2, TEXT_LIMIT // 2)
    if not rec.get("isSidechain") or meta.parent_session_id:
        meta.offer_title(text, TITLE_FIRST_PROMPT)
    out.messages.append(ParsedMessage("user", TEXT, text, key, ts=ts))


def _assistant(rec: dict, line_no: int, out: ParseOutput, meta: SessionMeta, tool_names: dict) -> None:
    msg = rec.get("message") or {}
    if msg.get("model") and msg["model"] != "<synthetic>":
        meta.model = msg["model"]
    ts = parse_iso(rec.get("timestamp"))
    content = msg.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return
    msg_id = msg.get("id")
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        # One API response is logged as several lines sharing message.id, and resumed
        # sessions copy lines: key each block by the response id and its content.
        if btype == "text":
            text = str(block.get("text", ""))
            if not text.strip():
                continue
            key = dedup_key(AGENT, msg_id, "text", digest(text)) if msg_id else _key(rec, line_no, i)
            out.messages.append(
                ParsedMessage("assistant", TEXT, cut_middle(strip_binary(text), TEXT_LIMIT // 2, TEXT_LIMIT // 2), key, ts=ts)
            )
        elif btype == "thinking":
            text = str(block.get("thinking", ""))
            if not text.strip():
                continue  # 2.1.x often keeps only the signature
            key = dedup_key(AGENT, msg_id, "thinking", digest(text)) if msg_id else _key(rec, line_no, i)
            out.messages.append(ParsedMessage("assistant", THINKING, text, key, ts=ts))
        elif btype == "tool_use":
            name = str(block.get("name") or "tool")
            tool_id = str(block.get("id") or "")
            if tool_id:
                tool_names[tool_id] = name
            args: Any = block.get("input")
            key = dedup_key(AGENT, "tool_use", tool_id) if tool_id else _key(rec, line_no, i)
            out.messages.append(
                ParsedMessage(
                    "assistant",
                    TOOL_CALL,
                    describe_tool_call(name, args),
                    key,
                    tool_name=name,
                    ts=ts,
                    detail=to_json(args),
                )
            )


def _system(rec: dict, line_no: int, out: ParseOutput) -> None:
    ts = parse_iso(rec.get("timestamp"))
    subtype = rec.get("subtype")
    if subtype == "compact_boundary":
        info = rec.get("compactMetadata") or {}
        text = "Conversation compacted"
        if info:
            text += f" (trigger: {info.get('trigger', '?')}, tokens before: {info.get('preTokens', '?')})"
        out.messages.append(ParsedMessage("system", SUMMARY, text, _key(rec, line_no, 0), ts=ts, indexed=False))
        return
    content = rec.get("content")
    text = flatten_content(content) if content else ""
    if subtype in ("turn_duration", "stop_hook_summary") or not text.strip():
        return
    out.messages.append(
        ParsedMessage("system", TEXT, cut_middle(text, TOOL_RESULT_HEAD, TOOL_RESULT_TAIL), _key(rec, line_no, 0), ts=ts, indexed=False)
    )

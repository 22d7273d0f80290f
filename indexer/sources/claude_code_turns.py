"""Claude Code's conversation records: prompts and tool results (``user``), replies, thinking
and tool calls (``assistant``), notes and errors (``system``); and the reader they share.

Every field is read as possibly the wrong JSON type (see ``indexer.sources.fields``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from indexer.models import ERROR, SUMMARY, TEXT, THINKING, TOOL_CALL, TOOL_RESULT
from indexer.sources.base import (
    TEXT_LIMIT,
    TITLE_COMMAND,
    ParseOutput,
    ParsedMessage,
    SessionMeta,
    clip_tool_output,
    cut_middle,
    dedup_key,
    digest,
    flatten_content,
    parse_iso,
    strip_binary,
    to_json,
)
from indexer.sources.fields import as_dict, as_int, as_list, as_str, scalar_text, str_list
from indexer.sources.tool_lines import describe_tool_call
from indexer.sources.token_usage import count_claude

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
_QUIET_SUBTYPES = ("turn_duration", "stop_hook_summary")
PARTIAL_MARK = "partial reply, cut off mid-stream"
RETRACTED_MARK = "retracted"


SIDECHAIN_MARK = "subagent (inline sidechain)"


class ClaudeReader:
    """One parse call over one file: where messages go, and which record made each, so a later
    record can retract earlier ones (``supersedesUuids``, ``retractedMessageUuids``)."""

    def __init__(self, path: Path, out: ParseOutput, meta: SessionMeta, state: dict, *, appending: bool):
        self.path, self.out, self.meta, self.state = path, out, meta, state
        self.appending = appending
        if not isinstance(state.get("tool_names"), dict):
            state["tool_names"] = {}
        self.tool_names: dict[str, str] = state["tool_names"]
        self.answered: set[str] = set()  # calls whose result this parse read
        self._by_uuid: dict[str, list[ParsedMessage]] = {}

    def key(self, rec: dict, line_no: int, index: int) -> str:
        uuid = as_str(rec.get("uuid"))
        return dedup_key(AGENT, uuid or f"{self.meta.session_id}:line{line_no}", index)

    def add(self, rec: dict, message: ParsedMessage) -> None:
        if rec.get("isSidechain") is True and not self.meta.parent_session_id and message.mark is None:
            # An old inline sidechain: a subagent's work inside the parent's file, not the parent's.
            message.mark = SIDECHAIN_MARK
        self.out.messages.append(message)
        uuid = as_str(rec.get("uuid"))
        if uuid:
            self._by_uuid.setdefault(uuid, []).append(message)

    @property
    def messages_by_uuid(self) -> dict[str, list[ParsedMessage]]:
        """The messages each record (by ``uuid``) made in this parse."""
        return self._by_uuid

    def retract(self, uuids: list[str], mark: str) -> None:
        for uuid in uuids:
            found = self._by_uuid.get(uuid)
            if found is None:
                # Written by an earlier run, or in another file: only a whole re-read can tell.
                self.out.restart = self.out.restart or self.appending
                continue
            for message in found:
                message.indexed = False
                message.mark = mark

    def finish(self) -> None:
        """Keep, for the next append, only the calls still waiting for their result: the state
        is stored with the file's row, and every answered call's name was ~60 bytes of it
        (11.7 MB of the 1 GB tree's index)."""
        for tool_id in self.answered:
            self.tool_names.pop(tool_id, None)
        if len(self.tool_names) > _MAX_TOOL_NAMES:
            for key in list(self.tool_names)[: len(self.tool_names) - _MAX_TOOL_NAMES]:
                del self.tool_names[key]


def learn_envelope(rec: dict, meta: SessionMeta, path: Path) -> None:
    cwd = as_str(rec.get("cwd"))
    if cwd and not meta.project_path:
        meta.project_path = cwd
    branch = as_str(rec.get("gitBranch"))
    if branch:
        meta.git_branch = branch
    # A flat 2.0.x agent-<hex>.jsonl names its parent only in sessionId ("<uuid>#agent-…" in
    # newer layouts, whose parent comes from the path instead).
    session_id = as_str(rec.get("sessionId")).split("#", 1)[0]
    if meta.parent_session_id is None and session_id and session_id != meta.session_id and path.stem.startswith("agent-"):
        meta.parent_session_id = session_id
    # --fork-session copies the history into a new session, each copy naming its origin.
    forked = rec.get("forkedFrom")
    origin = as_str(as_dict(forked).get("sessionId")) or as_str(forked)
    if origin and origin != meta.session_id and not meta.branched_from:
        meta.branched_from = origin


def user(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    content = as_dict(rec.get("message")).get("content")
    ts = parse_iso(rec.get("timestamp"))
    if rec.get("isCompactSummary") is True:
        text = flatten_content(content)
        if text.strip():
            reader.add(rec, ParsedMessage("system", SUMMARY, text, reader.key(rec, line_no, 0), ts=ts))
        return
    if isinstance(content, str):
        _user_text(reader, content, rec, line_no, 0, ts)
        return
    for i, block in enumerate(as_list(content)):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text":
            _user_text(reader, scalar_text(block.get("text")), rec, line_no, i, ts)
        elif btype == "tool_result":
            _tool_result(reader, block, rec, line_no, i, ts)
        elif btype == "image":
            reader.add(rec, ParsedMessage("user", TEXT, "[image]", reader.key(rec, line_no, i), ts=ts, indexed=False))


def _tool_result(reader: ClaudeReader, block: dict, rec: dict, line_no: int, index: int, ts: float | None) -> None:
    body = flatten_content(block.get("content"))
    if block.get("is_error") is True:
        body = "[error] " + body
    agent_id = as_str(as_dict(rec.get("toolUseResult")).get("agentId"))
    tool_id = as_str(block.get("tool_use_id"))
    reader.answered.add(tool_id)
    reader.add(rec, ParsedMessage(
        "tool", TOOL_RESULT, clip_tool_output(body), reader.key(rec, line_no, index),
        tool_name=reader.tool_names.get(tool_id), ts=ts,
        detail=json.dumps({"agentId": agent_id}) if agent_id else None, indexed=False,
    ))


def _user_text(reader: ClaudeReader, text: str, rec: dict, line_no: int, index: int, ts: float | None) -> None:
    if not text.strip():
        return
    key, meta = reader.key(rec, line_no, index), reader.meta
    command = _COMMAND_NAME.search(text)
    if command:
        args = _COMMAND_ARGS.search(text)
        typed = command.group(1).strip() + (" " + args.group(1).strip() if args and args.group(1).strip() else "")
        meta.offer_title(typed, TITLE_COMMAND)  # a real prompt, when one comes, titles it instead
        reader.add(rec, ParsedMessage("user", TEXT, typed, key, ts=ts))
        return
    bash = _BASH_INPUT.search(text)
    if bash:
        reader.add(rec, ParsedMessage("user", TOOL_CALL, f"[Bash] {bash.group(1).strip()}", key, tool_name="Bash", ts=ts))
        return
    start = text.lstrip()
    if rec.get("isMeta") is True or start.startswith(_OUTPUT_TAGS) or start.startswith(_INJECTED_PREFIXES):
        reader.add(rec, ParsedMessage("meta", TEXT, clip_tool_output(text), key, ts=ts, indexed=False))
        return
    text = cut_middle(strip_binary(text), TEXT_LIMIT // 2, TEXT_LIMIT // 2)
    if rec.get("isSidechain") is not True or meta.parent_session_id:
        meta.offer_prompt_title(text)
    reader.add(rec, ParsedMessage("user", TEXT, text, key, ts=ts))


def assistant(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    msg = as_dict(rec.get("message"))
    model = as_str(msg.get("model"))
    if model and model != "<synthetic>":
        reader.meta.model = model
    count_claude(reader.state, msg)
    ts = parse_iso(rec.get("timestamp"))
    content = msg.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    msg_id = as_str(msg.get("id"))
    api_error = rec.get("isApiErrorMessage") is True  # the final failure, written as a reply
    partial = rec.get("isAbortedMidStream") is True
    for i, block in enumerate(as_list(content)):
        message = _assistant_block(reader, as_dict(block), rec, line_no, i, msg_id, ts, api_error)
        if message is None:
            continue
        if partial:
            message.indexed, message.mark = False, PARTIAL_MARK
        reader.add(rec, message)
    reader.retract(str_list(rec.get("supersedesUuids")), RETRACTED_MARK)


def _assistant_block(reader: ClaudeReader, block: dict, rec: dict, line_no: int, index: int, msg_id: str,
                     ts: float | None, api_error: bool) -> ParsedMessage | None:
    # One API response is logged as several lines sharing message.id, and resumed sessions
    # copy lines: key each block by the response id and its content.
    btype = block.get("type")
    if btype == "text":
        text = scalar_text(block.get("text"))
        if not text.strip():
            return None
        key = dedup_key(AGENT, msg_id, "text", digest(text)) if msg_id else reader.key(rec, line_no, index)
        if api_error:
            return ParsedMessage("system", ERROR, text, key, ts=ts)
        return ParsedMessage("assistant", TEXT, cut_middle(strip_binary(text), TEXT_LIMIT // 2, TEXT_LIMIT // 2), key, ts=ts)
    if btype == "thinking":
        text = scalar_text(block.get("thinking"))
        if not text.strip():
            return None  # 2.1.x often keeps only the signature
        key = dedup_key(AGENT, msg_id, "thinking", digest(text)) if msg_id else reader.key(rec, line_no, index)
        return ParsedMessage("assistant", THINKING, text, key, ts=ts)
    if btype == "tool_use":
        name = as_str(block.get("name")) or "tool"
        tool_id = as_str(block.get("id"))
        if tool_id:
            reader.tool_names[tool_id] = name
        args: Any = block.get("input")
        key = dedup_key(AGENT, "tool_use", tool_id) if tool_id else reader.key(rec, line_no, index)
        return ParsedMessage("assistant", TOOL_CALL, describe_tool_call(name, args), key, tool_name=name, ts=ts,
                             detail=to_json(args))
    return None


def system(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    ts = parse_iso(rec.get("timestamp"))
    subtype = as_str(rec.get("subtype"))
    key = reader.key(rec, line_no, 0)
    if subtype == "compact_boundary":
        info = as_dict(rec.get("compactMetadata"))
        text = "Conversation compacted"
        if info:
            text += f" (trigger: {scalar_text(info.get('trigger')) or '?'}, tokens before: {scalar_text(info.get('preTokens')) or '?'})"
        reader.add(rec, ParsedMessage("system", SUMMARY, text, key, ts=ts, indexed=False))
        return
    error = _error_line(rec, subtype)
    if error:
        reader.add(rec, ParsedMessage("system", ERROR, error, key, ts=ts))
        reader.retract(str_list(rec.get("retractedMessageUuids")), RETRACTED_MARK)
        return
    text = flatten_content(rec.get("content"))
    if subtype in _QUIET_SUBTYPES or not text.strip():
        return
    reader.add(rec, ParsedMessage("system", TEXT, clip_tool_output(text), key, ts=ts, indexed=False))


def _error_line(rec: dict, subtype: str) -> str:
    """A searchable line for an API error, a refusal or any system note at level "error"."""
    content = flatten_content(rec.get("content")).strip()
    details = _error_details(rec.get("error"))
    if subtype == "api_error":
        retry, most = as_int(rec.get("retryAttempt")), as_int(rec.get("maxRetries"))
        tail = f" (retry {retry}/{most})" if retry is not None and most is not None else ""
        return "API error: " + " · ".join([*details, content] if content else details or ["no details"]) + tail
    if subtype in ("api_refusal", "model_refusal_fallback"):
        parts = [scalar_text(rec.get(k)) for k in ("apiRefusalCategory", "apiRefusalExplanation")]
        original, fallback = as_str(rec.get("originalModel")), as_str(rec.get("fallbackModel"))
        if original and fallback:
            parts.append(f"switched from {original} to {fallback}")
        parts += [content, *details]
        return "API refusal: " + " · ".join(p for p in parts if p) if any(parts) else "API refusal"
    if as_str(rec.get("level")) == "error" and (content or details):
        return "Error: " + " · ".join([content, *details] if content else details)
    return ""


def _error_details(value: Any, depth: int = 0) -> list[str]:
    """Status, type, code and message of an error object, however deeply the API nested them."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if not isinstance(value, dict) or depth > 3:
        return []
    parts: list[str] = []
    status = as_int(value.get("status"))
    if status is not None:
        parts.append(str(status))
    for key in ("type", "code", "message"):
        text = scalar_text(value.get(key))
        if text and text not in parts and text != "error":
            parts.append(text)
    for key in ("error", "cause"):
        parts += [p for p in _error_details(value.get(key), depth + 1) if p not in parts]
    return parts

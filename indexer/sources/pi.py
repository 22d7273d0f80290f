"""Pi coding agent: ``~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``, v1 to v3.

v2+ files are trees (entries with id/parentId); the active branch is the path from the last
entry to the root. Every entry is indexed in file order (an abandoned branch is still history
someone may search for), and entries off the active branch are marked. A header's
``branchedFrom`` / ``parentSession`` names the user's own session this one was branched or
forked from: it is a session of its own, not a subagent.
"""

from __future__ import annotations

import os
from pathlib import Path

from indexer.models import ERROR, SUMMARY, TEXT, THINKING, TOOL_CALL, TOOL_RESULT
from indexer.sources.base import (
    TEXT_LIMIT,
    TITLE_NAMED,
    ParseOutput,
    ParsedMessage,
    SessionMeta,
    clip_tool_output,
    cut_middle,
    dedup_key,
    name_message,
    flatten_content,
    iter_json_lines,
    parse_iso,
    strip_binary,
    to_json,
)
from indexer.sources.fields import as_dict, as_int, as_list, as_str, scalar_text
from indexer.sources.tool_lines import describe_tool_call
from indexer.sources.token_usage import count_pi

AGENT = "pi"
ABANDONED_MARK = "abandoned branch"
_FAILED_STOPS = {"aborted": "Aborted", "error": "Error"}


def default_roots() -> list[Path]:
    base = os.environ.get("PI_CODING_AGENT_DIR") or str(Path.home() / ".pi" / "agent")
    return [Path(base).expanduser() / "sessions"]


def is_log_file(name: str) -> bool:
    return name.endswith(".jsonl")


def init_meta(path: Path, meta: SessionMeta) -> None:
    stem = path.stem
    meta.session_id = stem.split("_", 1)[1] if "_" in stem else stem


class _Tree:
    """The entries one parse call saw, to mark those off the active branch.

    Appending lines that continue the last entry changes nothing already stored; a line that
    hangs elsewhere (the user went back and branched) asks for the whole file to be read again.
    """

    def __init__(self, state: dict, out: ParseOutput, appending: bool):
        self.state, self.out, self.appending = state, out, appending
        self.parents: dict[str, str] = {}
        self.entry_messages: list[tuple[str, ParsedMessage]] = []

    def entry(self, entry_id: str, parent_id: str) -> None:
        last = self.state.get("last_id")
        if self.appending and isinstance(last, str) and parent_id != last:
            self.out.restart = True
        self.parents[entry_id] = parent_id
        self.state["last_id"] = entry_id

    def mark_abandoned(self) -> None:
        last = self.state.get("last_id")
        if self.appending or not isinstance(last, str) or last not in self.parents:
            return
        active, node = set(), last
        while node and node not in active:
            active.add(node)
            node = self.parents.get(node, "")
        for entry_id, message in self.entry_messages:
            if entry_id not in active:
                message.mark = ABANDONED_MARK


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    out = ParseOutput()
    if meta.session_id is None:
        init_meta(path, meta)
    tree = _Tree(state, out, appending=first_line_no > 1)
    for line_no, rec in iter_json_lines(data, out, first_line_no):
        if not isinstance(rec, dict):
            continue
        etype = rec.get("type")
        if etype == "session":
            _header(rec, state, meta)
            continue
        entry_id = as_str(rec.get("id")) if state.get("version", 1) >= 2 else ""
        if entry_id:
            tree.entry(entry_id, as_str(rec.get("parentId")))
        first = len(out.messages)
        _entry(rec, etype, entry_id or f"line{line_no}", meta, out)
        if etype == "message":
            count_pi(state, as_dict(rec.get("message")))
        if entry_id:
            tree.entry_messages.extend((entry_id, m) for m in out.messages[first:])
    tree.mark_abandoned()
    return out


def _header(rec: dict, state: dict, meta: SessionMeta) -> None:
    state["version"] = as_int(rec.get("version")) or 1  # "version": "v3" has been seen
    session_id, cwd, model = as_str(rec.get("id")), as_str(rec.get("cwd")), as_str(rec.get("modelId"))
    if session_id:
        meta.session_id = session_id
    if cwd:
        meta.project_path = cwd
    if model:
        meta.model = model
    origin = as_str(rec.get("parentSession")) or as_str(rec.get("branchedFrom"))
    if origin:
        meta.branched_from = _session_id_from(origin)


def _entry(rec: dict, etype: object, entry_key: str, meta: SessionMeta, out: ParseOutput) -> None:
    if etype == "message":
        message = rec.get("message")
        if isinstance(message, dict):
            # The message's own time (epoch ms) first: the entry's ISO time is parsed only
            # when it has none, the slower of the two, once per message in a big history.
            ts = parse_iso(message.get("timestamp")) or parse_iso(rec.get("timestamp"))
            _message(message, entry_key, ts, meta, out)
        return
    ts = parse_iso(rec.get("timestamp"))
    if etype == "model_change":
        model = as_str(rec.get("modelId"))
        if model:
            meta.model = model
    elif etype in ("compaction", "branch_summary"):
        text = scalar_text(rec.get("summary"))
        if text.strip():
            out.messages.append(ParsedMessage("system", SUMMARY, text, _key(meta, entry_key, 0), ts=ts))
    elif etype == "session_info":
        meta.offer_title(as_str(rec.get("name")), TITLE_NAMED, latest_wins=True)
        named = name_message(AGENT, meta.session_id, as_str(rec.get("name")), ts)
        if named is not None:
            out.messages.append(named)
    elif etype == "custom_message":
        text = flatten_content(rec.get("content"))
        if text.strip():
            out.messages.append(ParsedMessage("meta", TEXT, clip_tool_output(text), _key(meta, entry_key, 0), ts=ts,
                                              indexed=False))
    # label, custom, thinking_level_change and unknown types: bookkeeping, skipped.


def _session_id_from(parent: str) -> str:
    """``parentSession`` is a file path in some versions and an id in others."""
    stem = Path(parent).stem if ("/" in parent or parent.endswith(".jsonl")) else parent
    return stem.split("_", 1)[1] if "_" in stem else stem


def _key(meta: SessionMeta, entry_key: str, index: int) -> str:
    return dedup_key(AGENT, meta.session_id, entry_key, index)


def _message(msg: dict, entry_key: str, ts: float | None, meta: SessionMeta, out: ParseOutput) -> None:
    role = msg.get("role")
    content = msg.get("content")

    def add(role: str, kind: str, text: str, index: int, **extra) -> None:
        out.messages.append(ParsedMessage(role, kind, text, _key(meta, entry_key, index), ts=ts, **extra))

    if role == "user":
        text = strip_binary(flatten_content(content))
        if text.strip():
            meta.offer_prompt_title(flatten_content(content, images=False))
            add("user", TEXT, cut_middle(text, TEXT_LIMIT // 2, TEXT_LIMIT // 2), 0)
    elif role == "assistant":
        _assistant(msg, content, add, meta)
    elif role == "toolResult":
        text = flatten_content(content)
        if msg.get("isError") is True:
            text = "[error] " + text
        add("tool", TOOL_RESULT, clip_tool_output(text), 0, tool_name=as_str(msg.get("toolName")) or None, indexed=False)
    elif role == "bashExecution":
        add("user", TOOL_CALL, f"[bash] {scalar_text(msg.get('command'))}", 0, tool_name="bash")
        output, code = scalar_text(msg.get("output")), as_int(msg.get("exitCode"))
        if code not in (None, 0):
            output = f"[exit {code}] {output}"
        add("tool", TOOL_RESULT, clip_tool_output(output), 1, tool_name="bash", indexed=False)
    elif role in ("branchSummary", "compactionSummary"):
        text = scalar_text(msg.get("summary")) or flatten_content(content)
        if text.strip():
            add("system", SUMMARY, text, 0)
    elif role == "custom":
        text = flatten_content(content)
        if text.strip():
            add("meta", TEXT, clip_tool_output(text), 0, indexed=False)


def _assistant(msg: dict, content: object, add, meta: SessionMeta) -> None:
    model = as_str(msg.get("model"))
    if model:
        meta.model = model
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    blocks = as_list(content)
    for i, block in enumerate(blocks):
        block = as_dict(block)
        btype = block.get("type")
        if btype == "text":
            text = strip_binary(scalar_text(block.get("text")))
            if text.strip():
                add("assistant", TEXT, cut_middle(text, TEXT_LIMIT // 2, TEXT_LIMIT // 2), i)
        elif btype == "thinking":
            text = scalar_text(block.get("thinking"))
            if text.strip():
                add("assistant", THINKING, text, i)
        elif btype == "toolCall":
            name = as_str(block.get("name")) or "tool"
            args = block.get("arguments")
            add("assistant", TOOL_CALL, describe_tool_call(name, args), i, tool_name=name, detail=to_json(args))
    # A reply that failed or was cut short says why: searchable, like any error.
    stop = as_str(msg.get("stopReason"))
    if stop in _FAILED_STOPS:
        reason = scalar_text(msg.get("errorMessage")) or "no details"
        add("system", ERROR, f"{_FAILED_STOPS[stop]}: {reason}", len(blocks))

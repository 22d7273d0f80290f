"""A Codex thread's content: ``response_item`` payloads (messages, reasoning, tool calls and
their output) and the ``event_msg`` payloads worth keeping (names, errors, aborts, spawned
agents, reviews, plans, and prompts or replies that have no response-item twin).

``event_msg user_message`` / ``agent_message`` usually repeat a response item, but older
archived rollouts and spawned children may hold only the event. Each side remembers its recent
unmatched texts, so whichever comes second is recognised as a twin and skipped, in either order
and across index runs.
"""

from __future__ import annotations

import json
from typing import Any, Callable

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
    digest,
    flatten_content,
    strip_binary,
    to_json,
)
from indexer.sources.fields import as_dict, as_list, as_str, scalar_text
from indexer.sources.tool_lines import describe_tool_call
from indexer.sources.token_usage import count_codex

AGENT = "codex"

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
RESPONSE_ITEM_TYPES = frozenset({
    "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
    "custom_tool_call_output", "local_shell_call", "web_search_call", "tool_search_call",
    "image_generation_call", "agent_message",
})
_CALL_TOOL_NAMES = {
    "local_shell_call": "shell",
    "web_search_call": "web_search",
    "tool_search_call": "tool_search",
    "image_generation_call": "image_generation",
}
_MAX_CALL_NAMES = 500
_TWIN_WINDOW = 64  # unmatched texts remembered per side; twins sit within a turn of each other
_ROLE_AS_TOOL = ("function", "tool")  # tool output sent back as a message: never user text
KeyOf = Callable[..., str]  # a record's dedup key from the parts that tell it apart


class CodexReader:
    """One parse call: where messages go, the thread they belong to and the twin bookkeeping."""

    def __init__(self, out: ParseOutput, meta: SessionMeta, state: dict):
        self.out, self.meta, self.state = out, meta, state
        for name in ("call_names", "twins"):
            if not isinstance(state.get(name), dict):
                state[name] = {}
        self.call_names: dict[str, str] = state["call_names"]
        self.twins: dict[str, list[str]] = state["twins"]

    @property
    def thread(self) -> str | None:
        return self.state.get("thread_id") or self.meta.session_id

    def add(self, message: ParsedMessage) -> None:
        self.out.messages.append(message)
        if len(self.call_names) > _MAX_CALL_NAMES:
            for key in list(self.call_names)[:-_MAX_CALL_NAMES]:
                del self.call_names[key]

    def is_twin(self, side: str, role: str, text: str) -> bool:
        """True when the other side already gave this text; else remember it for the other side."""
        mark = f"{role}:{digest(' '.join(text.split()))}"
        other = self.twins.setdefault("event" if side == "item" else "item", [])
        if mark in other:
            other.remove(mark)
            return True
        mine = self.twins.setdefault(side, [])
        mine.append(mark)
        del mine[:-_TWIN_WINDOW]
        return False


def _said(reader: CodexReader, side: str, role: str, text: str, typed: str, key: str, ts: float | None,
          mark: str | None = None) -> None:
    """A prompt or a reply from either side, unless its twin was already read."""
    if reader.is_twin(side, role, typed or text):
        return
    if role == "user":
        reader.meta.offer_prompt_title(typed)
    reader.add(ParsedMessage(role, TEXT, cut_middle(text, TEXT_LIMIT // 2, TEXT_LIMIT // 2), key, ts=ts, mark=mark))


def response_item(reader: CodexReader, item: dict, ts: float | None, line_no: int, envelope_ts: Any = None) -> None:
    itype = as_str(item.get("type"))

    def key(*extra: object) -> str:
        # Forks and resumes copy items into new files; the item's own content and time
        # identify it across copies.
        return dedup_key(AGENT, reader.thread, as_str(envelope_ts) or line_no, itype, *extra)

    if itype == "message":
        _message(reader, item, ts, key)
    elif itype == "reasoning":
        parts = [scalar_text(s.get("text")) for s in as_list(item.get("summary")) if isinstance(s, dict)]
        text = "\n".join(p for p in parts if p)
        if text.strip():  # encrypted_content is never indexed
            reader.add(ParsedMessage("assistant", THINKING, text, key(digest(text)), ts=ts))
    elif itype in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call",
                   "tool_search_call", "image_generation_call"):
        _call(reader, item, itype, ts, key)
    elif itype in ("function_call_output", "custom_tool_call_output"):
        call_id = as_str(item.get("call_id"))
        reader.add(ParsedMessage("tool", TOOL_RESULT, _output_text(item.get("output")), key(call_id, "out"),
                                 tool_name=reader.call_names.get(call_id), ts=ts, indexed=False))
    elif itype == "agent_message":  # a message between agents of one run
        text = strip_binary(flatten_content(item.get("content")) or scalar_text(item.get("message")))
        if text.strip():
            reader.add(ParsedMessage("assistant", TEXT, cut_middle(text, TEXT_LIMIT // 2, TEXT_LIMIT // 2),
                                     key(digest(text)), ts=ts, mark="between agents"))


def _message(reader: CodexReader, item: dict, ts: float | None, key: KeyOf) -> None:
    role = as_str(item.get("role"))
    content = item.get("content")
    text = strip_binary(flatten_content(content))
    if not text.strip():
        return
    if role in _ROLE_AS_TOOL:
        reader.add(ParsedMessage("tool", TOOL_RESULT, clip_tool_output(text), key(digest(text)), ts=ts, indexed=False))
        return
    injected = text.lstrip().startswith(_INJECTED)
    if role in ("developer", "system") or (injected and not reader.is_twin("item", "meta", text)):
        reader.add(ParsedMessage("meta", TEXT, clip_tool_output(text), key(digest(text)), ts=ts, indexed=False))
    if role in ("developer", "system") or injected:
        return
    role = "assistant" if role == "assistant" else "user"
    _said(reader, "item", role, text, flatten_content(content, images=False), key(digest(text)), ts)


def _call(reader: CodexReader, item: dict, itype: str, ts: float | None, key: KeyOf) -> None:
    name = as_str(item.get("name")) or _CALL_TOOL_NAMES.get(itype, "tool")
    if itype == "function_call":
        args: Any = item.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except (ValueError, RecursionError):
                pass
    elif itype == "custom_tool_call":
        args = item.get("input")
    elif itype == "local_shell_call" or itype == "web_search_call":
        args = item.get("action")
    else:  # a tool search or an image generation: what was asked, never the base64 result
        args = {k: item[k] for k in ("query", "arguments", "prompt") if k in item}
        if "revised_prompt" in item:
            args["prompt"] = item["revised_prompt"]
    call_id = as_str(item.get("call_id")) or as_str(item.get("id"))
    if call_id:
        reader.call_names[call_id] = name
    reader.add(ParsedMessage("assistant", TOOL_CALL, describe_tool_call(name, args), key(call_id or digest(to_json(args))),
                             tool_name=name, ts=ts, detail=to_json(args)))


def _output_text(output: Any) -> str:
    if isinstance(output, str) and output.startswith("{"):
        try:
            decoded = json.loads(output)
        except (ValueError, RecursionError):
            decoded = None
        if isinstance(decoded, dict) and "output" in decoded:
            output = decoded["output"]
    return clip_tool_output(output if isinstance(output, str) else flatten_content(output))


def compacted(reader: CodexReader, payload: dict, ts: float | None, envelope_ts: Any) -> None:
    """A compaction's summary; newer ones have an empty message and a ``replacement_history``
    of items already read where they first appeared."""
    text = scalar_text(payload.get("message"))
    if text.strip():
        key = dedup_key(AGENT, reader.meta.session_id, "compacted", as_str(envelope_ts), digest(text))
        reader.add(ParsedMessage("system", SUMMARY, text, key, ts=ts))


def event(reader: CodexReader, payload: dict, ts: float | None, line_no: int, envelope_ts: Any = None) -> None:
    """An ``event_msg`` line: each type to its own reader (``_EVENT_READERS``)."""
    etype = as_str(payload.get("type"))

    def key(text: str) -> str:
        return dedup_key(AGENT, reader.thread, as_str(envelope_ts) or line_no, "event", etype, digest(text))

    if etype in _ERROR_EVENTS:
        text = _ERROR_EVENTS[etype](payload)
        reader.add(ParsedMessage("system", ERROR, text, key(text), ts=ts))
        return
    read = _EVENT_READERS.get(etype)
    if read is not None:
        read(reader, payload, ts, key)
    # task_started/complete, agent_reasoning (twin of a reasoning item) ...: skipped.


def _user_event(reader: CodexReader, payload: dict, ts: float | None, key: KeyOf) -> None:
    text = scalar_text(payload.get("message"))
    images = len(as_list(payload.get("images"))) + len(as_list(payload.get("local_images")))
    shown = "\n".join([text, *["[image]"] * images]).strip()
    if not shown:
        return
    if text.lstrip().startswith(_INJECTED):
        if not reader.is_twin("event", "meta", text):
            reader.add(ParsedMessage("meta", TEXT, clip_tool_output(text), key(text), ts=ts, indexed=False))
        return
    _said(reader, "event", "user", strip_binary(shown), text, key(text), ts)


def _agent_event(reader: CodexReader, payload: dict, ts: float | None, key: KeyOf) -> None:
    text = scalar_text(payload.get("message"))
    if text.strip():
        _said(reader, "event", "assistant", strip_binary(text), text, key(text), ts)


def _raw_reasoning_event(reader: CodexReader, payload: dict, ts: float | None, key: KeyOf) -> None:
    """``agent_reasoning_raw_content``: the model's raw reasoning, kept only when the config asks
    (``show_raw_agent_reasoning``) and in no other record."""
    text = scalar_text(payload.get("text"))
    if text.strip():
        reader.add(ParsedMessage("assistant", THINKING, text, key(text), ts=ts))


def _token_event(reader: CodexReader, payload: dict, ts: float | None, key: KeyOf) -> None:
    count_codex(reader.state, payload)


def _name_event(reader: CodexReader, payload: dict, ts: float | None, key: KeyOf) -> None:
    name = as_str(payload.get("thread_name")) or as_str(payload.get("name"))
    reader.meta.offer_title(name, TITLE_NAMED, latest_wins=True)
    named = name_message(AGENT, reader.thread, name, ts)
    if named is not None:
        reader.add(named)


def _review_event(reader: CodexReader, payload: dict, ts: float | None, key: KeyOf) -> None:
    text = _review_text(as_dict(payload.get("review_output")))
    if text:
        reader.add(ParsedMessage("assistant", TEXT, text, key(text), ts=ts, mark="code review"))


def _item_completed_event(reader: CodexReader, payload: dict, ts: float | None, key: KeyOf) -> None:
    item = as_dict(payload.get("item"))
    text = scalar_text(item.get("text"))
    if as_str(item.get("type")).lower() == "plan" and text.strip():
        reader.add(ParsedMessage("assistant", TEXT, text, key(text), ts=ts, mark="plan"))


def _error_text(prefix: str, payload: dict) -> str:
    message = scalar_text(payload.get("message")) or scalar_text(payload.get("reason"))
    info = payload.get("codex_error_info")
    detail = as_str(info) or ", ".join(as_str(k) for k in as_dict(info))
    return f"{prefix}: {message or 'no details'}" + (f" ({detail})" if detail else "")


_ERROR_EVENTS = {
    "error": lambda p: _error_text("Error", p),
    "stream_error": lambda p: _error_text("Stream error", p),
    "turn_aborted": lambda p: f"Turn aborted: {scalar_text(p.get('reason')) or 'no reason given'}",
}


def _spawned(reader: CodexReader, payload: dict, ts: float | None, key: KeyOf) -> None:
    """The parent's record of a spawned child thread: a tool line naming it, its role and prompt."""
    child = as_str(payload.get("new_thread_id"))
    args = {
        "agent_type": as_str(payload.get("new_agent_role")),
        "description": " ".join(x for x in (as_str(payload.get("new_agent_nickname")),
                                            f"thread {child}" if child else "") if x),
        "prompt": scalar_text(payload.get("prompt")),
    }
    args = {k: v for k, v in args.items() if v}
    detail = {k: payload[k] for k in ("new_thread_id", "new_agent_nickname", "new_agent_role", "model", "status",
                                      "prompt", "call_id") if k in payload}
    text = describe_tool_call("spawn_agent", args)
    reader.add(ParsedMessage("assistant", TOOL_CALL, text, key(text), tool_name="spawn_agent", ts=ts,
                             detail=to_json(detail)))


def _review_text(review: dict) -> str:
    lines = [scalar_text(review.get("overall_explanation")), scalar_text(review.get("overall_correctness"))]
    for finding in as_list(review.get("findings")):
        finding = as_dict(finding)
        where = as_str(as_dict(finding.get("code_location")).get("absolute_file_path"))
        lines.append(" ".join(x for x in (scalar_text(finding.get("title")), where, scalar_text(finding.get("body"))) if x))
    return "\n".join(line for line in lines if line.strip())


_EVENT_READERS = {
    "user_message": _user_event,
    "agent_message": _agent_event,
    "agent_reasoning_raw_content": _raw_reasoning_event,
    "token_count": _token_event,
    "thread_name_updated": _name_event,
    "collab_agent_spawn_end": _spawned,
    "exited_review_mode": _review_event,
    "item_completed": _item_completed_event,
}

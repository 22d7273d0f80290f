"""Adding messages the way every parser of the newer agents does: text cut to the stored
limit, base64 left out, tool calls as one searchable line, tool output clipped and not indexed,
and a dedup key from the agent, the session and where the message sits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from indexer.models import ERROR, SUMMARY, TEXT, THINKING, TOOL_CALL, TOOL_RESULT
from indexer.sources.base import (
    TEXT_LIMIT,
    ParseOutput,
    ParsedMessage,
    SessionMeta,
    clip_tool_output,
    cut_middle,
    dedup_key,
    flatten_content,
    iter_json_lines,
    strip_binary,
    to_json,
)
from indexer.sources.fields import as_dict, as_str, scalar_text
from indexer.sources.tool_lines import describe_tool_call


class Emitter:
    """One parse call's output for one agent's session."""

    def __init__(self, agent: str, meta: SessionMeta, out: ParseOutput):
        self.agent, self.meta, self.out = agent, meta, out

    def key(self, where: object, index: object = 0) -> str:
        return dedup_key(self.agent, self.meta.session_id, where, index)

    def said(self, role: str, text: str, where: object, index: object = 0, ts: float | None = None,
             **extra: Any) -> None:
        """A user's or the assistant's words; the first typed prompt is the fallback title."""
        text = strip_binary(text)
        if not text.strip():
            return
        if role == "user":
            self.meta.offer_prompt_title(text)
        self.out.messages.append(ParsedMessage(role, TEXT, cut_middle(text, TEXT_LIMIT // 2, TEXT_LIMIT // 2),
                                               self.key(where, index), ts=ts, **extra))

    def thought(self, text: str, where: object, index: object = 0, ts: float | None = None) -> None:
        if text.strip():
            self.out.messages.append(ParsedMessage("assistant", THINKING, text, self.key(where, index), ts=ts))

    def tool_call(self, name: str, args: Any, where: object, index: object = 0, ts: float | None = None) -> None:
        name = name or "tool"
        if isinstance(args, str):
            stripped = args.strip()
            args = _json_or(stripped) if stripped.startswith("{") else args
        self.out.messages.append(ParsedMessage("assistant", TOOL_CALL, describe_tool_call(name, args),
                                               self.key(where, index), tool_name=name, ts=ts, detail=to_json(args)))

    def tool_result(self, name: str | None, output: Any, where: object, index: object = 0,
                    ts: float | None = None, failed: bool = False) -> None:
        text = output if isinstance(output, str) else flatten_content(output) if isinstance(output, list) else (
            to_json(output) if isinstance(output, dict) else scalar_text(output))
        if not text.strip() and not failed:
            return  # an edit's empty output says nothing the call did not
        if failed:
            text = "[error] " + text
        self.out.messages.append(ParsedMessage("tool", TOOL_RESULT, clip_tool_output(text), self.key(where, index),
                                               tool_name=name or None, ts=ts, indexed=False))

    def error(self, text: str, where: object, index: object = 0, ts: float | None = None) -> None:
        if text.strip():
            self.out.messages.append(ParsedMessage("system", ERROR, text, self.key(where, index), ts=ts))

    def summary(self, text: str, where: object, index: object = 0, ts: float | None = None) -> None:
        if text.strip():
            self.out.messages.append(ParsedMessage("system", SUMMARY, text, self.key(where, index), ts=ts))

    def blocks(self, role: str, content: Any, where: object, ts: float | None = None) -> None:
        """Anthropic-style content blocks (text, thinking, tool_use, tool_result, image), as
        Cursor and Amp keep them; a plain string is one text block."""
        if isinstance(content, str):
            self.said(role, content, where, 0, ts)
            return
        if isinstance(content, dict):
            content = [content]
        if not isinstance(content, list):
            return
        for i, block in enumerate(content):
            self._block(role, block, where, i, ts)

    def _block(self, role: str, block: Any, where: object, i: int, ts: float | None) -> None:
        if isinstance(block, str):
            self.said(role, block, where, i, ts)
            return
        block = as_dict(block)
        btype = as_str(block.get("type"))
        if btype == "thinking" or btype == "reasoning":
            self.thought(scalar_text(block.get("thinking")) or scalar_text(block.get("text")), where, i, ts)
        elif btype in ("tool_use", "tool-call", "tool_call"):
            self.tool_call(as_str(block.get("name")) or as_str(block.get("toolName")),
                           block.get("input", block.get("args")), where, i, ts)
        elif btype in ("tool_result", "tool-result"):
            run = as_dict(block.get("run"))
            output = block.get("content") if "content" in block else run.get("result", block.get("output"))
            failed = block.get("is_error") is True or as_str(run.get("status")) in ("error", "cancelled")
            if output is None and failed:
                output = scalar_text(as_dict(run.get("error")).get("message")) or as_str(run.get("status"))
            self.tool_result(as_str(block.get("name")) or None, output, where, i, ts, failed)
        else:
            self.said(role, flatten_content([block]), where, i, ts)


def _json_or(text: str) -> Any:
    import json

    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def parse_records(agent: str, path: Path, data: bytes, first_line_no: int, meta: SessionMeta,
                  init_meta: Callable[[Path, SessionMeta], None],
                  on_record: Callable[[Emitter, dict, int], None]) -> ParseOutput:
    """The parse every one-JSON-object-a-line format shares: the session named from its file on
    the first read, then each object handed to ``on_record`` with its line number (a line that
    is not an object is skipped; one that is not JSON is counted by ``iter_json_lines``)."""
    out = ParseOutput()
    if meta.session_id is None:
        init_meta(path, meta)
    emit = Emitter(agent, meta, out)
    for line_no, record in iter_json_lines(data, out, first_line_no):
        if isinstance(record, dict):
            on_record(emit, record, line_no)
    return out

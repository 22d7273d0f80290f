"""One transcript message as a Rich renderable: role header, text with highlighted code
fences, tool calls as one line (arguments on expand), trimmed tool results, collapsed thinking.

All log text goes through ``visible`` and ``Text``/``Syntax``: never markup, never raw escapes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

from indexer import Message
from tui.display.humanize_time import clock
from tui.display.counts import plural
from tui.display.log_text import find_terms, mark_terms, one_line, visible

FENCE = re.compile(r"^```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
RESULT_LINES = 4  # a tool result shows this many lines until expanded
TEXT_LINES = 60  # a very long user/assistant message is cut here until expanded
SYNTAX_THEME = "ansi_dark"  # terminal palette colours: right on 16- and 256-colour terminals

ROLE_NAMES = {"user": "you", "assistant": "assistant", "tool": "tool", "system": "system", "meta": "injected"}


@dataclass(frozen=True)
class MessageStyles:
    """Rich styles resolved from the widget's component classes (so app.tcss decides)."""

    user: Style
    assistant: Style
    other: Style
    dim: Style
    tool: Style
    match: Style
    focus: Style


def _header(m: Message, styles: MessageStyles, label: str | None = None, focused: bool = False) -> Text:
    role_style = {"user": styles.user, "assistant": styles.assistant}.get(m.role, styles.other)
    text = Text(no_wrap=True, overflow="ellipsis")
    if focused:
        text.append("▶ ", style=styles.focus)
    text.append(label or ROLE_NAMES.get(m.role, m.role), style=role_style)
    text.append(f"  {clock(m.ts)}  #{m.ordinal + 1}", style=styles.dim)
    if m.mark:
        text.append(f"  · {m.mark}", style=styles.dim)
    return text


def _cut(text: str, max_lines: int) -> tuple[str, int]:
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return text, 0
    return "\n".join(lines[:max_lines]), len(lines) - max_lines


def _body(text: str, styles: MessageStyles, find: str, style: Style | str = "",
          reveal: bool = False) -> list[RenderableType]:
    """Prose as ``Text`` and fenced code blocks as ``Syntax`` (secrets masked unless ``reveal``)."""
    parts: list[RenderableType] = []
    position = 0
    for fence in FENCE.finditer(text):
        if fence.start() > position:
            parts.append(_prose(text[position:fence.start()].strip("\n"), styles, find, style, reveal))
        lexer = fence.group(1).lower() or "text"
        code = visible(fence.group(2).rstrip("\n"), reveal_secrets=reveal)
        parts.append(Syntax(code, lexer, theme=SYNTAX_THEME, word_wrap=True,
                            padding=(0, 0, 0, 2)))
        position = fence.end()
    if position < len(text):
        parts.append(_prose(text[position:].strip("\n"), styles, find, style, reveal))
    return parts


def _prose(text: str, styles: MessageStyles, find: str, style: Style | str, reveal: bool = False) -> Text:
    body = Text(visible(text, reveal_secrets=reveal), style=style)
    mark_terms(body, find, styles.match)
    return body


def _pretty_json(detail: str) -> str:
    try:
        return json.dumps(json.loads(detail), indent=2, ensure_ascii=False)
    except (ValueError, TypeError):
        return detail


def _more_lines(hidden: int, styles: MessageStyles) -> Text:
    """The line under a cut message saying how much the cut hides."""
    return Text(f"  … {plural(hidden, 'more line')} · enter to expand", style=styles.dim)


def _tool_call(m: Message, styles: MessageStyles, *, expanded: bool, find: str, focused: bool,
               reveal: bool) -> RenderableType:
    """One line (tool name and summary); the arguments as JSON below it when expanded."""
    line = _header(m, styles, label=f"⚙ {m.tool_name or 'tool'}", focused=focused)
    line.append("  ")
    summary = Text(one_line(m.text, 400, reveal_secrets=reveal), style=styles.tool)
    mark_terms(summary, find, styles.match)
    line.append_text(summary)
    if not expanded or not m.detail:
        return line
    code = visible(_pretty_json(m.detail), reveal_secrets=reveal)
    return Group(line, Syntax(code, "json", theme=SYNTAX_THEME, word_wrap=True, padding=(0, 0, 0, 2)))


def _thinking(m: Message, styles: MessageStyles, *, expanded: bool, find: str, focused: bool,
              reveal: bool) -> RenderableType:
    """A word count until expanded, then the reasoning in dim italics."""
    header = _header(m, styles, label="✻ thinking", focused=focused)
    if not expanded:
        header.append(f"  {len(m.text.split()):,} words · enter to expand", style=styles.dim)
        return header
    return Group(header, *_body(m.text, styles, find, style=Style(italic=True) + styles.dim, reveal=reveal))


def _tool_result(m: Message, styles: MessageStyles, *, expanded: bool, find: str, focused: bool,
                 reveal: bool) -> RenderableType:
    """Dim plain text (never code-highlighted), its first lines until expanded."""
    header = _header(m, styles, label=f"↳ result{f' ({m.tool_name})' if m.tool_name else ''}", focused=focused)
    text, hidden = (m.text, 0) if expanded else _cut(m.text, RESULT_LINES)
    body = _prose(text, styles, find, styles.dim, reveal)
    parts: list[RenderableType] = [header, body]
    if hidden:
        parts.append(_more_lines(hidden, styles))
    return Group(*parts)


def _collapsed_injected(m: Message, styles: MessageStyles, *, focused: bool, reveal: bool) -> Text:
    """Injected context (``meta``) as one line under its header until expanded."""
    header = _header(m, styles, focused=focused)
    header.append("  " + one_line(m.text, 120, reveal_secrets=reveal) + "  · enter to expand", style=styles.dim)
    return header


def _conversation_label(m: Message, user_label: str | None) -> str | None:
    """A summary or an error says so; a user message may be named by the caller; else None (the
    role's name)."""
    return {"summary": "summary", "error": "⚠ error"}.get(m.kind) or (user_label if m.role == "user" else None)


def _conversation(m: Message, styles: MessageStyles, *, expanded: bool, find: str, focused: bool,
                  reveal: bool, user_label: str | None) -> RenderableType:
    """Prose (user, assistant, summary, error, expanded injected context) with highlighted code
    fences, cut at ``TEXT_LINES`` until expanded."""
    header = _header(m, styles, label=_conversation_label(m, user_label), focused=focused)
    text, hidden = (m.text, 0) if expanded else _cut(m.text, TEXT_LINES)
    parts: list[RenderableType] = [header, *_body(text, styles, find, reveal=reveal)]
    if hidden:
        parts.append(_more_lines(hidden, styles))
    parts.append(Text(""))  # prose gets air below it; runs of tool lines stay compact
    return Group(*parts)


def render_message(m: Message, styles: MessageStyles, *, expanded: bool = False, find: str = "",
                   focused: bool = False, reveal_secrets: bool = False,
                   user_label: str | None = None) -> RenderableType:
    """``user_label``: what a user message is called ("you" when None; a subagent's prompt
    came from its parent agent)."""
    reveal = reveal_secrets  # API keys, tokens and passwords are masked unless asked for
    if m.kind == "tool_call":
        return _tool_call(m, styles, expanded=expanded, find=find, focused=focused, reveal=reveal)
    if m.kind == "thinking":
        return _thinking(m, styles, expanded=expanded, find=find, focused=focused, reveal=reveal)
    if m.kind == "tool_result" or m.role == "tool":
        return _tool_result(m, styles, expanded=expanded, find=find, focused=focused, reveal=reveal)
    if m.role == "meta" and not expanded:
        return _collapsed_injected(m, styles, focused=focused, reveal=reveal)
    return _conversation(m, styles, expanded=expanded, find=find, focused=focused, reveal=reveal,
                         user_label=user_label)


def message_matches(m: Message, needle: str) -> bool:
    """Every term of the find (``find_terms``) is in the message's text or its detail."""
    haystack = m.text.lower() + ("\n" + m.detail.lower() if m.detail is not None else "")
    terms = find_terms(needle.lower())
    return bool(terms) and all(term in haystack for term in terms)

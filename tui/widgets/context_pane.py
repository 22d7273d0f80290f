"""The messages around the selected hit (N before and after), the hit itself marked."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from indexer import Hit, Message
from tui.humanize_time import clock
from tui.log_text import log_text, mark_matches
from tui.widgets.result_list import ROLE_LABELS

LINES_PER_MESSAGE = 12  # context messages are trimmed hard, the hit itself gently
LINES_FOR_HIT = 200


class ContextPane(VerticalScroll, can_focus=False):
    COMPONENT_CLASSES = {
        "context-pane--header",
        "context-pane--role",
        "context-pane--hit-role",
        "context-pane--dim",
        "context-pane--match",
    }

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.shown_ids: tuple[int, ...] = ()  # message ids on show, in order

    def compose(self):
        yield Static(id="context-body")

    def clear(self, message: str = "") -> None:
        self.shown_ids = ()
        self.query_one("#context-body", Static).update(Text(message, style="italic"))

    def show(self, hit: Hit, before: tuple[Message, ...], after: tuple[Message, ...], size: int, terms: list[str]) -> None:
        style = self.get_component_rich_style
        s = hit.session
        header = Text(no_wrap=False)
        header.append(f"{s.agent} · {s.project_name or '?'} · {clock(s.start_ts)}", style=style("context-pane--header"))
        header.append(f"\n{s.session_id}", style=style("context-pane--dim"))
        if s.title:
            header.append("\n")
            header.append_text(log_text(s.title[:200], style=style("context-pane--dim")))
        header.append(f"\ncontext: {size} before and after  (+/- to change)", style=style("context-pane--dim"))
        parts: list = [header]
        self.shown_ids = tuple(m.id for m in (*before, hit.message, *after))
        for message in (*before, hit.message, *after):
            is_hit = message.id == hit.message.id
            label = Text("\n")
            label.append(("▶ " if is_hit else "  ") + ROLE_LABELS.get(message.role, message.role),
                         style=style("context-pane--hit-role" if is_hit else "context-pane--role"))
            kind = "" if message.kind == "text" else f" ({message.kind.replace('_', ' ')}{f': {message.tool_name}' if message.tool_name else ''})"
            label.append(f"{kind} · {clock(message.ts)}", style=style("context-pane--dim"))
            body_text = _trim(message.text, LINES_FOR_HIT if is_hit else LINES_PER_MESSAGE)
            body = log_text(body_text, style="" if is_hit else style("context-pane--dim"))
            for term in terms:
                mark_matches(body, term, style("context-pane--match"))
            parts.append(label)
            parts.append(body)
        self.query_one("#context-body", Static).update(Group(*parts))
        self.scroll_home(animate=False)


def _trim(text: str, max_lines: int) -> str:
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return text if len(text) < max_lines * 160 else text[: max_lines * 160] + "…"
    return "\n".join(lines[:max_lines]) + f"\n… {len(lines) - max_lines} more lines"

"""The messages around the selected hit (N before and after), the hit itself marked; for a
memory hit, the whole memory (an episodic entry's fields, a fact, a scratchpad line).

The pane scrolls to the hit when it is below the fold (long tool output before it, a wide
context), and takes focus (tab) so the arrows and page keys scroll it."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from indexer import Hit, Message
from indexer.memory import MemoryHit
from tui.display.humanize_time import clock
from tui.display.log_text import log_text, mark_matches
from tui.display.counts import plural
from tui.widgets.result_list import ROLE_LABELS, memory_hit_label

LINES_PER_MESSAGE = 12  # context messages are trimmed hard, the hit itself gently
LINES_FOR_HIT = 200
LINES_ABOVE_HIT = 2  # when scrolled to the hit, the end of the message before it stays in view


class ContextPane(VerticalScroll):
    HELP_TITLE = "Preview"  # its keys' section in the help screen
    BINDINGS = [
        # No printable key: what is typed here goes on in the search box (the app's type-ahead).
        Binding("right", "screen.context(1)", "More context", id="preview.context_more"),
        Binding("left", "screen.context(-1)", "Less context", id="preview.context_less"),
        Binding("enter", "scroll_to_hit", "To the hit", id="preview.to_hit"),
        Binding("ctrl+pagedown", "screen.page(1)", "Next page", id="preview.next_page", show=False),
        Binding("ctrl+pageup", "screen.page(-1)", "Previous page", id="preview.prev_page", show=False),
    ]
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
        self.hit_line = 0  # the line of the hit's label in the shown content
        self.hit_height = 0  # the lines of the hit (its label and text)

    def compose(self):
        yield Static(id="context-body")

    def clear(self, message: str = "") -> None:
        self.shown_ids = ()
        self.hit_line = 0
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
        header.append(f"\ncontext: {size} before and after  (→/← to change)", style=style("context-pane--dim"))
        parts: list = [header]
        self.shown_ids = tuple(m.id for m in (*before, hit.message, *after))
        above_hit: list = []
        for message in (*before, hit.message, *after):
            is_hit = message.id == hit.message.id
            if is_hit:
                above_hit = list(parts)
                hit_parts = len(parts)
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
        self.hit_line = self._lines(above_hit) + 1  # the label starts with an empty line
        self.hit_height = self._lines(parts[hit_parts:hit_parts + 2]) - 1
        self.call_after_refresh(self.action_scroll_to_hit)

    def _lines(self, parts: list) -> int:
        """How many lines ``parts`` take at the pane's width (the scrollbar's gutter is kept, so
        the width does not change when a scrollbar appears)."""
        width = self.scrollable_content_region.width
        if not parts or width <= 0:
            return 0
        console = self.app.console
        return len(console.render_lines(Group(*parts), console.options.update_width(width), pad=False))

    def action_scroll_to_hit(self) -> None:
        """Show the hit from its first line: from the top when the hit (or half a pane of it)
        fits under the header, else scrolled so that its label is near the top."""
        if not self.shown_ids:
            self.scroll_home(animate=False)
            return
        height = self.scrollable_content_region.height
        fits = self.hit_line + min(self.hit_height, height // 2) < height
        self.scroll_to(y=0 if fits else self.hit_line - LINES_ABOVE_HIT, animate=False)

    def show_memory(self, hit: MemoryHit, terms: list[str], folder: str) -> None:
        """One memory hit in full, its matches marked; ``folder`` names the memory folder."""
        style = self.get_component_rich_style
        self.shown_ids = ()
        self.hit_line = self.hit_height = 0
        header = Text(no_wrap=False)
        header.append(memory_hit_label(hit), style=style("context-pane--header"))
        header.append(f"\n{folder}", style=style("context-pane--dim"))
        fields: list[tuple[str, str]] = []
        if hit.entry is not None:
            e = hit.entry
            header.append(f"\n{e.type} · {e.ts or 'no time'} · importance {e.importance}",
                          style=style("context-pane--dim"))
            fields = [("summary", e.summary), ("detail", e.detail), ("lesson", e.lesson),
                      ("tags", ", ".join(e.tags))]
        elif hit.fact is not None:
            header.append(f"\nfact.yml line {hit.fact.line}", style=style("context-pane--dim"))
            fields = [("key", hit.fact.key), ("value", hit.fact.value_text)]
        elif hit.item is not None:
            item = hit.item
            state = "done" if item.checked else "open"
            header.append(f"\nscratchpad.md line {item.line} · {item.kind} · {state}",
                          style=style("context-pane--dim"))
            fields = [("item", item.text)]
        header.append("\nenter: open in Memory (F4) · y: copy the id", style=style("context-pane--dim"))
        parts: list = [header]
        for label, value in fields:
            if not value:
                continue
            parts.append(Text("\n" + label, style=style("context-pane--role")))
            body = log_text(_trim(value, LINES_FOR_HIT))
            for term in terms:
                mark_matches(body, term, style("context-pane--match"))
            parts.append(body)
        self.query_one("#context-body", Static).update(Group(*parts))
        self.scroll_home(animate=False)


def _trim(text: str, max_lines: int) -> str:
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return text if len(text) < max_lines * 160 else text[: max_lines * 160] + "…"
    return "\n".join(lines[:max_lines]) + f"\n… {plural(len(lines) - max_lines, 'more line')}"

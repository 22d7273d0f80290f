"""One page of search hits, two lines each: agent, project, when, role; then the snippet with
its matches, given the full width of the list so it stays readable.

When the search includes memory, memory hits come first (``memory · episodic · ep-… ·
strength 0.77`` over the matching text); they post their own ``Memory…`` messages, so a
handler of ``Highlighted``/``Chosen`` only ever sees session hits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from indexer import Hit
from indexer.activity import is_active
from indexer.memory import MemoryHit
from indexer.search.query import Term, match_spans
from indexer.search.snippets import make_snippet
from tui.display.humanize_time import dated
from tui.display.log_text import highlighted, one_line
from tui.display.counts import plural
from tui.requests import ResumeSession

ROLE_LABELS = {"user": "user", "assistant": "assistant", "tool": "tool", "system": "system", "meta": "injected"}
MEMORY_SNIPPET_COLUMNS = 120


def memory_hit_text(hit: MemoryHit) -> str:
    """The searchable text of a memory hit on one line: an episodic entry's summary, detail,
    lesson and tags; a fact's ``key: value``; a scratchpad item's line."""
    if hit.entry is not None:
        e = hit.entry
        parts = [e.summary, e.detail, f"lesson: {e.lesson}" if e.lesson else "",
                 f"tags: {', '.join(e.tags)}" if e.tags else ""]
        return " · ".join(p for p in parts if p)
    return hit.text


def memory_hit_label(hit: MemoryHit) -> str:
    """``memory · episodic · ep-1a2b3c4d · strength 0.77`` (the first line of a memory row)."""
    parts = ["memory", hit.kind]
    if hit.kind == "scratchpad" and hit.item is not None:
        parts.append(f"line {hit.item.line}")
    else:
        parts.append(hit.id)
    if hit.strength is not None:
        parts.append(f"strength {hit.strength:.2f}")
    return " · ".join(parts)


def fit(text: str, width: int) -> str:
    """``text`` cut or padded to exactly ``width`` cells (CJK-aware), with an ellipsis if cut."""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


CLOSEST_DIVIDER = "── not an exact match: the closest below ──"


class ResultList(OptionList):
    """Shows one page of hits; posts ``Highlighted``/``Chosen`` with the ``Hit`` (not the row text)."""
    HELP_TITLE = "Results"  # its keys' section in the help screen

    # Every printable key typed here goes on in the search box (the app's type-ahead, see
    # ``ThreadbackApp.on_event``): so no key of this list is a printable one.
    BINDINGS = [
        Binding("enter", "select", "Open transcript", id="results.open"),
        Binding("ctrl+y", "copy('id')", "Copy id", id="results.copy_id"),
        Binding("ctrl+k", "copy('resume')", "Copy resume", id="results.copy_resume"),
        Binding("ctrl+e", "resume(False)", "Resume", id="results.resume"),
        Binding("ctrl+d", "resume(True)", "Fork…", id="results.fork", show=False),
        Binding("right", "screen.context(1)", "More context", id="results.context_more", show=False),
        Binding("left", "screen.context(-1)", "Less context", id="results.context_less", show=False),
        Binding("ctrl+pagedown", "screen.page(1)", "Next page", id="results.next_page", show=False),
        Binding("ctrl+pageup", "screen.page(-1)", "Previous page", id="results.prev_page", show=False),
        Binding("up", "cursor_up", "Up (from the first: the search box)", id="results.up", show=False),
        Binding("escape", "screen.focus_query", "Search box", id="results.focus_query", show=False),
    ]
    COMPONENT_CLASSES = {
        "result-list--agent",
        "result-list--project",
        "result-list--time",
        "result-list--active",
        "result-list--role",
        "result-list--match",
        "result-list--memory",
    }

    @dataclass
    class Highlighted(Message):
        hit: Hit

    @dataclass
    class Chosen(Message):
        hit: Hit

    @dataclass
    class CopyRequested(Message):
        hit: Hit
        what: str

    @dataclass
    class MemoryHighlighted(Message):
        hit: MemoryHit

    @dataclass
    class MemoryChosen(Message):
        hit: MemoryHit

    @dataclass
    class MemoryCopyRequested(Message):
        hit: MemoryHit
        what: str

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.hits: list[Hit] = []
        self.memory_hits: list[MemoryHit] = []  # shown above ``hits``

    def show_hits(
        self,
        hits: list[Hit],
        now: float,
        memory_hits: Sequence[MemoryHit] = (),
        memory_terms: Sequence[Term] = (),
        matches: Sequence[int] = (),
        *,
        keep_cursor: bool = False,
        closest_from: int = -1,
    ) -> None:
        """``closest_from``: the first hit that is not an exact match (a divider line above it);
        ``matches``: in the session view, how many messages of each hit's session matched;
        ``keep_cursor`` (a live update): the cursor stays on the row it was on, found by its
        message, or at its place when that row is gone."""
        before, place = self.current_item, self.highlighted
        self.hits = list(hits)
        self.memory_hits = list(memory_hits)
        options = [Option(self.memory_row(hit, memory_terms), id=f"memory-{i}") for i, hit in enumerate(self.memory_hits)]
        counts = list(matches) + [0] * (len(self.hits) - len(matches))
        options += [Option(self.row(hit, now, counts[i], divider=i == closest_from), id=str(i))
                    for i, hit in enumerate(self.hits)]
        scroll_y = self.scroll_y
        self.set_options(options)
        if options and keep_cursor and place is not None:
            self.highlighted = self._index_of(before, min(place, len(options) - 1))
            self.scroll_to(y=scroll_y, animate=False, immediate=True)
        elif options:
            self.highlighted = 0

    def _index_of(self, item: Hit | MemoryHit | None, default: int) -> int:
        if isinstance(item, Hit):
            for i, hit in enumerate(self.hits):
                if hit.message.id == item.message.id:
                    return len(self.memory_hits) + i
        elif item is not None:
            for i, memory_hit in enumerate(self.memory_hits):
                if memory_hit == item:
                    return i
        return default

    def row(self, hit: Hit, now: float, matches: int = 0, *, divider: bool = False) -> Text:
        style = self.get_component_rich_style
        s = hit.session
        project = one_line(s.project_name or "?", 40)
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        if divider:  # inside the row, so the rows' indexes stay those of the hits
            text.append(CLOSEST_DIVIDER + "\n", style=style("result-list--time", partial=True))
        text.append(s.agent + "  ", style=style("result-list--agent", partial=True))
        text.append(fit(project, min(24, cell_len(project))) + "  ", style=style("result-list--project", partial=True))
        text.append(dated(hit.message.ts or s.start_ts, now) + "  ", style=style("result-list--time", partial=True))
        role = ROLE_LABELS.get(hit.message.role, hit.message.role)
        if hit.message.kind != "text":
            role += " · " + hit.message.kind.replace("_", " ")
        text.append(role, style=style("result-list--role", partial=True))
        if is_active(s, now):
            text.append("  · active", style=style("result-list--active", partial=True))
        if matches:
            # messages of this session that matched; short, so the date beside it leaves it whole
            text.append(f"  · {plural(matches, 'match', 'matches')}", style=style("result-list--time", partial=True))
        if hit.matched != "all words":
            text.append(f"  · {hit.matched}", style=style("result-list--time", partial=True))
        text.append("\n  ")
        text.append_text(highlighted(hit.snippet, hit.spans, style("result-list--match", partial=True)))
        return text

    def memory_row(self, hit: MemoryHit, terms: Sequence[Term]) -> Text:
        style = self.get_component_rich_style
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        text.append(one_line(memory_hit_label(hit), 120), style=style("result-list--memory", partial=True))
        whole = " ".join(memory_hit_text(hit).split())
        if cell_len(whole) <= MEMORY_SNIPPET_COLUMNS:  # short: all of it, no lead-in cut
            snippet, spans = whole, match_spans(whole, list(terms))
        else:
            snippet, spans = make_snippet(whole, list(terms), MEMORY_SNIPPET_COLUMNS)
        text.append("\n  ")
        text.append_text(highlighted(snippet, spans, style("result-list--match", partial=True)))
        return text

    def _item_at(self, index: int | None) -> Hit | MemoryHit | None:
        if index is None:
            return None
        if index < len(self.memory_hits):
            return self.memory_hits[index]
        index -= len(self.memory_hits)
        return self.hits[index] if 0 <= index < len(self.hits) else None

    @property
    def current_item(self) -> Hit | MemoryHit | None:
        """The highlighted row: a session ``Hit`` or a ``MemoryHit``."""
        return self._item_at(self.highlighted)

    @property
    def current_hit(self) -> Hit | None:
        """The highlighted session hit (None on a memory row)."""
        item = self.current_item
        return item if isinstance(item, Hit) else None

    @property
    def current_memory_hit(self) -> MemoryHit | None:
        item = self.current_item
        return item if isinstance(item, MemoryHit) else None

    def _on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        item = self._item_at(event.option_index)
        if isinstance(item, MemoryHit):
            self.post_message(self.MemoryHighlighted(item))
        elif item is not None:
            self.post_message(self.Highlighted(item))

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        item = self._item_at(event.option_index)
        if isinstance(item, MemoryHit):
            self.post_message(self.MemoryChosen(item))
        elif item is not None:
            self.post_message(self.Chosen(item))

    # Async where OptionList's is not: Textual runs actions through run_action, which awaits one.
    async def action_cursor_up(self) -> None:  # type: ignore[override]
        """From the first row (or an empty list) ↑ goes back to the search box."""
        if not self.highlighted:
            await self.run_action("screen.focus_query")
            return
        super().action_cursor_up()

    def action_resume(self, fork: bool) -> None:
        item = self.current_item
        if isinstance(item, Hit):
            self.post_message(ResumeSession(item.session, fork))
        elif item is not None:
            self.notify("A memory has no agent session to resume.", severity="warning")

    def action_copy(self, what: str) -> None:
        item = self.current_item
        if isinstance(item, MemoryHit):
            self.post_message(self.MemoryCopyRequested(item, what))
        elif item is not None:
            self.post_message(self.CopyRequested(item, what))

"""One page of search hits, two lines each: agent, project, when, role; then the snippet with
its matches, given the full width of the list so it stays readable."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from indexer import Hit
from tui.humanize_time import short_ago
from tui.log_text import highlighted, one_line

ROLE_LABELS = {"user": "user", "assistant": "assistant", "tool": "tool", "system": "system", "meta": "injected"}


def fit(text: str, width: int) -> str:
    """``text`` cut or padded to exactly ``width`` cells (CJK-aware), with an ellipsis if cut."""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


class ResultList(OptionList):
    """Shows one page of hits; posts ``Highlighted``/``Chosen`` with the ``Hit`` (not the row text)."""

    BINDINGS = [
        Binding("enter", "select", "Open transcript", id="results.open"),
        Binding("y", "copy('id')", "Copy id", id="results.copy_id"),
        Binding("r", "copy('resume')", "Copy resume", id="results.copy_resume"),
        Binding("plus,equals_sign", "screen.context(1)", "More context", id="results.context_more", key_display="+", show=False),
        Binding("minus", "screen.context(-1)", "Less context", id="results.context_less", key_display="-", show=False),
        Binding("right_square_bracket", "screen.page(1)", "Next page", id="results.next_page", key_display="]", show=False),
        Binding("left_square_bracket", "screen.page(-1)", "Previous page", id="results.prev_page", key_display="[", show=False),
        Binding("slash", "screen.focus_query", "Search box", id="results.focus_query", show=False, key_display="/"),
    ]
    COMPONENT_CLASSES = {
        "result-list--agent",
        "result-list--project",
        "result-list--time",
        "result-list--role",
        "result-list--match",
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

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.hits: list[Hit] = []

    def show_hits(self, hits: list[Hit], now: float) -> None:
        self.hits = list(hits)
        self.set_options(Option(self.row(hit, now), id=str(i)) for i, hit in enumerate(self.hits))
        if self.hits:
            self.highlighted = 0

    def row(self, hit: Hit, now: float) -> Text:
        style = self.get_component_rich_style
        s = hit.session
        project = one_line(s.project_name or "?", 40)
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        text.append(s.agent + "  ", style=style("result-list--agent", partial=True))
        text.append(fit(project, min(24, cell_len(project))) + "  ", style=style("result-list--project", partial=True))
        text.append(short_ago(hit.message.ts or s.start_ts, now) + "  ", style=style("result-list--time", partial=True))
        role = ROLE_LABELS.get(hit.message.role, hit.message.role)
        if hit.message.kind != "text":
            role += " · " + hit.message.kind.replace("_", " ")
        text.append(role, style=style("result-list--role", partial=True))
        text.append("\n  ")
        text.append_text(highlighted(hit.snippet, hit.spans, style("result-list--match", partial=True)))
        return text

    @property
    def current_hit(self) -> Hit | None:
        if self.highlighted is None or not self.hits:
            return None
        return self.hits[self.highlighted]

    def _on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index < len(self.hits):
            self.post_message(self.Highlighted(self.hits[event.option_index]))

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.hits):
            self.post_message(self.Chosen(self.hits[event.option_index]))

    def action_copy(self, what: str) -> None:
        if (hit := self.current_hit) is not None:
            self.post_message(self.CopyRequested(hit, what))

"""``?``: every key of the screen you came from, grouped by where it works, read from the
bindings of the screen and of its widgets that name a ``HELP_TITLE``."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from indexer.agents.settings import HooksStatus
from indexer.search import filters
from tui.screens.hooks import hooks_summary


def _bindings_of(cls: type) -> list[Binding]:
    return [b for b in getattr(cls, "BINDINGS", []) if isinstance(b, Binding) and b.description]


EVERYWHERE_EXTRAS = [
    Binding("ctrl+p", "command_palette", "Command palette"),
    Binding("tab", "focus_next", "Next pane"),
]


def key_sections(under: Screen, app_bindings: Sequence[Binding | tuple]) -> list[tuple[str, list[Binding]]]:
    """(section title, bindings): the screen's own keys, then those of each widget on it that
    names a ``HELP_TITLE`` (in screen order), then the app-wide keys. Built from the bindings
    themselves, so a screen's help always lists what its keys do."""
    sections: list[tuple[str, list[Binding]]] = []
    seen: set[type] = set()
    for node in [under, *under.query("*")]:
        cls = type(node)
        title = getattr(cls, "HELP_TITLE", None)
        if not title or cls in seen:
            continue
        seen.add(cls)
        bindings = _bindings_of(cls)
        if bindings:
            sections.append((title, bindings))
    everywhere = [b for b in app_bindings if isinstance(b, Binding) and b.description]
    sections.append(("Everywhere", everywhere + EVERYWHERE_EXTRAS))
    return sections


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close", id="help.close")]

    def __init__(self, under: Screen, *, app_bindings: Sequence[Binding | tuple] = (),
                 hooks: Sequence[tuple[str, HooksStatus]] | None = None) -> None:
        super().__init__()
        self.under = under
        self.app_bindings = app_bindings
        self.hooks = hooks

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static(self._table(), id="help-body")

    def _table(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", style="bold", no_wrap=True)
        table.add_column()
        table.add_row(Text("Threadback keys", style="bold underline"), "")
        for title, bindings in key_sections(self.under, self.app_bindings):
            table.add_row("", "")
            table.add_row(Text(title, style="bold italic"), "")
            for binding in bindings:
                keys = binding.key_display or ", ".join(self.app.get_key_display(Binding(k, "")) for k in binding.key.split(","))
                table.add_row(keys, binding.description)
        note = getattr(type(self.under), "HELP_NOTE", None)
        if note:
            table.add_row("", "")
            table.add_row("", Text(note))
        hooks = self.hooks
        if hooks is not None:
            table.add_row("", "")
            table.add_row("", Text.assemble(("Claude Code hooks: ", "bold"), hooks_summary(hooks),
                                            (" · F6 to install or remove", "dim")))
        table.add_row("", "")
        table.add_row("", Text("Query language: words (all must match), \"a phrase\", a OR b, -word,\n"
                               + filters.examples_listed(filters.SCREEN), style="dim"))
        table.add_row("", Text("escape closes this help", style="dim"))
        return table

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)

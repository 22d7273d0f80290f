"""``?``: every key of the screen you came from, grouped by where it works."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from tui.screens.hooks import hooks_summary


def _bindings_of(cls: type) -> list[Binding]:
    return [b for b in getattr(cls, "BINDINGS", []) if isinstance(b, Binding) and b.description]


def key_sections(under: Screen) -> list[tuple[str, list[Binding]]]:
    """(section title, bindings): the screen's own keys, its widgets' keys, then app-wide keys."""
    from tui.app import ThreadbackApp
    from tui.screens.search import SearchScreen
    from tui.screens.sessions import SessionsScreen
    from tui.screens.transcript import TranscriptScreen
    from tui.widgets.message_list import MessageList
    from tui.widgets.result_list import ResultList
    from tui.widgets.session_tree import SessionTree

    per_screen: dict[type, list[tuple[str, type]]] = {
        SearchScreen: [("Search box", SearchScreen), ("Results", ResultList)],
        SessionsScreen: [("Sessions", SessionsScreen), ("Session tree", SessionTree)],
        TranscriptScreen: [("Transcript", TranscriptScreen), ("Messages", MessageList)],
    }
    sections = [(title, _bindings_of(cls)) for title, cls in per_screen.get(type(under), [])]
    sections.append(("Everywhere", _bindings_of(ThreadbackApp) + [
        Binding("ctrl+p", "command_palette", "Command palette"),
        Binding("tab", "focus_next", "Next pane"),
    ]))
    return sections


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close", id="help.close")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static(self._table(), id="help-body")

    def _table(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", style="bold", no_wrap=True)
        table.add_column()
        table.add_row(Text("Threadback keys", style="bold underline"), "")
        for title, bindings in key_sections(self.under):
            table.add_row("", "")
            table.add_row(Text(title, style="bold italic"), "")
            for binding in bindings:
                keys = binding.key_display or ", ".join(self.app.get_key_display(Binding(k, "")) for k in binding.key.split(","))
                table.add_row(keys, binding.description)
        hooks = getattr(self.app, "hooks", None)
        if hooks is None and hasattr(self.app, "read_hooks"):
            # Not loaded yet by the start-up worker: two small files, read now so help is complete.
            hooks = self.app.read_hooks()
        if hooks is not None:
            table.add_row("", "")
            table.add_row("", Text.assemble(("Claude Code hooks: ", "bold"), hooks_summary(hooks),
                                            (" · F6 to install or remove", "dim")))
        table.add_row("", "")
        table.add_row("", Text("Query language: words (all must match), \"a phrase\", a OR b, -word,\n"
                               "agent:codex project:name session:id role:user since:7d until:2026-05-01", style="dim"))
        table.add_row("", Text("escape closes this help", style="dim"))
        return table

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)

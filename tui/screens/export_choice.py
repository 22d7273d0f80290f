"""The transcript's export dialog: which format, said before anything is written, and where it
goes. Dismissed with ``"md"``, ``"html"``, ``"json"`` or None."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

CHOICES = (
    ("md", "m", "Markdown", "compact, for another agent: tool output heads, no thinking"),
    ("html", "h", "HTML", "one page for people: tool calls and thinking fold away"),
    ("json", "j", "JSON", "every message, as `threadback show --json` prints it"),
)


class ExportChoiceScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding("escape", "choose(None)", "Cancel", id="export.cancel"),
        Binding("m", "choose('md')", "Markdown", id="export.md"),
        Binding("h", "choose('html')", "HTML", id="export.html"),
        Binding("j", "choose('json')", "JSON", id="export.json"),
    ]

    def __init__(self, folder_label: str, secrets_shown: bool) -> None:
        super().__init__()
        self.folder_label = folder_label
        self.secrets_shown = secrets_shown

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog"):
            yield Label("Export this session", id="export-title")
            yield OptionList(*(Option(f"{key}  {name:<9} {what}", id=fmt) for fmt, key, name, what in CHOICES),
                             id="export-formats")
            secrets = "secrets shown in full (ctrl+s)" if self.secrets_shown else "secrets masked"
            yield Static(f"Writes to {self.folder_label}, with its subagents; {secrets}.", id="export-where",
                         markup=False)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_choose(self, fmt: str | None) -> None:
        self.dismiss(fmt)

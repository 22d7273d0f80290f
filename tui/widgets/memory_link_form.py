"""Ask for the other end of a link: type an id (with completion) or pick from the list."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from tui.display.log_text import one_line


class MemoryLinkForm(ModalScreen[str | None]):
    """Dismissed with the chosen entry id, or None. ``choices`` are (id, summary) pairs."""

    DEFAULT_CSS = """
    MemoryLinkForm { align: center middle; }
    MemoryLinkForm > #link-form {
        width: 84; max-width: 100%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    MemoryLinkForm #link-form-title { text-style: bold; margin-bottom: 1; }
    MemoryLinkForm #link-choices { height: auto; max-height: 14; }
    MemoryLinkForm #link-form-error { color: $error; height: auto; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="memory.link.cancel")]

    def __init__(self, title: str, choices: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.form_title = title
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        ids = [entry_id for entry_id, _ in self.choices]
        with Vertical(id="link-form"):
            yield Label(self.form_title, id="link-form-title", markup=False)
            yield Input(placeholder="entry id, or text to narrow the list", id="link-id",
                        suggester=SuggestFromList(ids))
            yield OptionList(*self._options(""), id="link-choices")
            yield Static("", id="link-form-error", markup=False)

    def _options(self, needle: str) -> list[Option]:
        low = needle.strip().lower()
        return [
            Option(Text.assemble((entry_id, "bold"), "  ", one_line(summary, 70)), id=entry_id)
            for entry_id, summary in self.choices
            if not low or low in entry_id.lower() or low in summary.lower()
        ]

    def on_input_changed(self, event: Input.Changed) -> None:
        options = self.query_one("#link-choices", OptionList)
        options.clear_options()
        options.add_options(self._options(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        ids = {entry_id for entry_id, _ in self.choices}
        if value in ids:
            self.dismiss(value)
            return
        matches = self._options(value)
        if len(matches) == 1 and matches[0].id is not None:
            self.dismiss(matches[0].id)
            return
        self.query_one("#link-form-error", Static).update(
            f"{value!r} is not one of the entries listed" if value else "type an id or pick one"
        )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)

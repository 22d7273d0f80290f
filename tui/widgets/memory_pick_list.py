"""Choose some of a list (e.g. which scratchpad items to keep when finishing a task)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, SelectionList, Static

T = TypeVar("T")


class MemoryPickList(ModalScreen[list[T] | None], Generic[T]):
    """Dismissed with the chosen values (in list order), or None when cancelled."""

    DEFAULT_CSS = """
    MemoryPickList { align: center middle; }
    MemoryPickList > #pick-dialog {
        width: 90; max-width: 100%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    MemoryPickList #pick-title { text-style: bold; }
    MemoryPickList #pick-hint { color: $text-muted; margin-bottom: 1; }
    MemoryPickList #pick-list { height: auto; max-height: 20; }
    MemoryPickList #pick-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    MemoryPickList #pick-buttons Button { margin-left: 2; }
    """
    BINDINGS = [
        Binding("ctrl+s", "done", "Continue", id="memory.pick.done"),
        Binding("escape", "cancel", "Cancel", id="memory.pick.cancel"),
    ]

    def __init__(
        self,
        title: str,
        hint: str,
        choices: Sequence[tuple[Text | str, T, bool]],
        *,
        ok: str = "Continue",
    ) -> None:
        super().__init__()
        self.dialog_title, self.hint, self.choices, self.ok = title, hint, list(choices), ok

    def compose(self) -> ComposeResult:
        with Vertical(id="pick-dialog"):
            yield Label(self.dialog_title, id="pick-title", markup=False)
            yield Static(self.hint, id="pick-hint", markup=False)
            yield SelectionList[int](
                *[(label, i, chosen) for i, (label, _, chosen) in enumerate(self.choices)],
                id="pick-list",
            )
            with Horizontal(id="pick-buttons"):
                yield Button(self.ok, id="pick-ok", variant="primary")
                yield Button("Cancel", id="pick-cancel")

    def action_done(self) -> None:
        picked = set(self.query_one("#pick-list", SelectionList).selected)
        self.dismiss([value for i, (_, value, _) in enumerate(self.choices) if i in picked])

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "pick-ok":
            self.action_done()
        else:
            self.action_cancel()

"""The one yes/no dialog: ``ConfirmScreen`` is dismissed with the answer."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


def on_yes(action: Callable[[], object]) -> Callable[[bool | None], None]:
    """The dialog's callback (``push_screen(ConfirmScreen(...), on_yes(...))``): ``action`` runs
    on yes, nothing on no or escape."""

    def answered(yes: bool | None) -> None:
        if yes:
            action()

    return answered


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("escape,n", "answer(False)", "No", id="confirm.no"),
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
    ]

    def __init__(self, title: str, question: str, *, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.title_text, self.question, self.yes, self.no = title, question, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Label(self.title_text, id="confirm-title", markup=False)
            yield Static(self.question, id="confirm-question", markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button(self.yes, id="confirm-yes", variant="primary")
                yield Button(self.no, id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class ConfirmLine(ModalScreen[bool]):
    """A one-line question at the foot of the screen: enter says yes, escape no. No letter
    answers it, so text typed on after the key that asked cannot say yes."""

    BINDINGS = [
        Binding("enter", "answer(True)", "Yes", id="confirm_line.yes"),
        Binding("escape", "answer(False)", "No", id="confirm_line.no"),
    ]

    def __init__(self, question: str, *, yes: str) -> None:
        super().__init__()
        self.question, self.yes = question, yes

    def compose(self) -> ComposeResult:
        with Horizontal(id="confirm-line"):
            yield Static(self.question, id="confirm-line-question", markup=False)
            yield Static(f"enter: {self.yes} · esc: cancel", id="confirm-line-keys", markup=False)

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

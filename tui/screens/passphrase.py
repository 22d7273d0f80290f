"""The approval passphrase, typed in the app: ``PassphraseScreen`` is dismissed with what was
typed (``None``: cancelled). The first time it asks twice, to set the passphrase up."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

SET_UP_NOTE = ("Choose an approval passphrase. It is never stored: each review asks for it, so a "
               "program running as you cannot approve in your name.")
UNLOCK_NOTE = "Type your approval passphrase to approve (asked once while the app runs)."


class PassphraseScreen(ModalScreen["str | None"]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="passphrase.cancel")]

    def __init__(self, *, set_up: bool) -> None:
        super().__init__()
        self.set_up = set_up

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Label("Set up your approval passphrase" if self.set_up else "Approval passphrase",
                        id="confirm-title", markup=False)
            yield Static(SET_UP_NOTE if self.set_up else UNLOCK_NOTE, id="confirm-question", markup=False)
            yield Input(password=True, placeholder="passphrase", id="passphrase")
            if self.set_up:
                yield Input(password=True, placeholder="the same again", id="passphrase-again")
            yield Static("", id="passphrase-problem", markup=False)

    def on_mount(self) -> None:
        self.query_one("#passphrase", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        first = self.query_one("#passphrase", Input).value
        if not self.set_up:
            self.dismiss(first)
            return
        again = self.query_one("#passphrase-again", Input)
        if event.input.id == "passphrase":
            again.focus()
        elif again.value != first:
            self.query_one("#passphrase-problem", Static).update("The two passphrases differ; type them again.")
            again.value = ""
            self.query_one("#passphrase", Input).value = ""
            self.query_one("#passphrase", Input).focus()
        else:
            self.dismiss(first)

    def action_cancel(self) -> None:
        self.dismiss(None)

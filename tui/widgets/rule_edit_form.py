"""Edit a rule's text before approving it; dismissed with the new text or None."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static, TextArea


class RuleEditForm(ModalScreen[str | None]):
    DEFAULT_CSS = """
    RuleEditForm { align: center middle; }
    RuleEditForm > #rule-edit {
        width: 96; max-width: 100%; height: 80%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    RuleEditForm #rule-edit-title { text-style: bold; }
    RuleEditForm #rule-edit-hint { color: $text-muted; margin-bottom: 1; }
    RuleEditForm #rule-edit-text { height: 1fr; }
    RuleEditForm #rule-edit-buttons { height: auto; align-horizontal: right; }
    RuleEditForm #rule-edit-buttons Button { margin-left: 2; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "Done", id="rules.edit.save"),
        Binding("escape", "cancel", "Cancel", id="rules.edit.cancel"),
    ]

    def __init__(self, rule_id: str, text: str) -> None:
        super().__init__()
        self.rule_id, self.text = rule_id, text

    def compose(self) -> ComposeResult:
        with Vertical(id="rule-edit"):
            yield Label(f"Edit {self.rule_id}", id="rule-edit-title", markup=False)
            yield Static(
                "ctrl+s when done. Nothing is approved yet: the next step shows your edit with "
                "every hidden character marked, and ctrl+y approves it.",
                id="rule-edit-hint",
                markup=False,
            )
            yield TextArea(self.text, id="rule-edit-text", soft_wrap=True)
            with Horizontal(id="rule-edit-buttons"):
                yield Button("Done", id="rule-edit-done", variant="primary")
                yield Button("Cancel", id="rule-edit-cancel")

    def on_mount(self) -> None:
        self.query_one("#rule-edit-text", TextArea).focus()

    def action_save(self) -> None:
        self.dismiss(self.query_one("#rule-edit-text", TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "rule-edit-done":
            self.action_save()
        else:
            self.action_cancel()

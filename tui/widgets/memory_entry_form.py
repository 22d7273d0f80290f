"""The add / edit / promote form for an episodic entry, dismissed with the draft (or None)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList, Suggester
from textual.widgets import Button, Checkbox, Input, Label, Static, TextArea

from indexer.memory import DEFAULT_IMPORTANCE, EPISODE_TYPES, EpisodicDraft, MemoryInputError


@dataclass(frozen=True, slots=True)
class EntryFormResult:
    draft: EpisodicDraft
    remove_item: bool = False  # promote only: drop the scratchpad line instead of marking it


class TagSuggester(Suggester):
    """Completes the last comma-separated tag from the tags already in use."""

    def __init__(self, known: Sequence[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.known = list(known)

    async def get_suggestion(self, value: str) -> str | None:
        head, _, last = value.rpartition(",")
        stem = last.strip()
        if not stem:
            return None
        chosen = {t.strip() for t in head.split(",")}
        for tag in self.known:
            if tag.startswith(stem) and tag != stem and tag not in chosen:
                return value[: len(value) - len(last)] + last[: len(last) - len(stem)] + tag
        return None


class MarkedCheckbox(Checkbox):
    """A checkbox whose mark itself says on (✓) or off (blank), not only its colour."""

    @property  # Checkbox's class attribute, read from the instance at each render
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return "✓" if self.value else " "


def split_tags(value: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in value.split(",") if t.strip())


class MemoryEntryForm(ModalScreen[EntryFormResult | None]):
    """Type, summary, detail, lesson, tags (with suggestions) and importance."""

    DEFAULT_CSS = """
    MemoryEntryForm { align: center middle; }
    MemoryEntryForm > #entry-form {
        width: 84; max-width: 100%; height: auto; max-height: 100%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    MemoryEntryForm #entry-form-title { text-style: bold; margin-bottom: 1; }
    MemoryEntryForm .entry-form-label { margin-top: 1; color: $text-muted; }
    MemoryEntryForm Input, MemoryEntryForm TextArea { margin: 0 1; background: $panel; }
    MemoryEntryForm #entry-detail { height: 4; }
    MemoryEntryForm #entry-known-tags { color: $text-muted; margin: 0 1; }
    MemoryEntryForm #entry-form-error { color: $error; height: auto; }
    MemoryEntryForm #entry-form-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    MemoryEntryForm #entry-form-buttons Button { margin-left: 2; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="memory.form.save"),
        Binding("escape", "cancel", "Cancel", id="memory.form.cancel"),
    ]

    def __init__(
        self,
        title: str,
        draft: EpisodicDraft | None = None,
        *,
        known_tags: Sequence[str] = (),
        offer_remove: bool = False,
        remove: bool = False,
    ) -> None:
        super().__init__()
        self.form_title = title
        self.draft = draft or EpisodicDraft(summary="")
        self.known_tags = list(known_tags)
        self.offer_remove = offer_remove
        self.remove_at_first = remove  # the checkbox's first state

    def compose(self) -> ComposeResult:
        d = self.draft
        # Fields in the order tab visits them: the summary first (focused), then the rest down
        # the form. The scrolling frame itself takes no focus (tab never stops on it).
        with VerticalScroll(id="entry-form") as frame:
            frame.can_focus = False
            yield Label(self.form_title, id="entry-form-title", markup=False)
            # Pre-filled fields keep their text on focus: the first key edits, never replaces.
            yield Label("Summary", classes="entry-form-label")
            yield Input(d.summary, id="entry-summary", compact=True, select_on_focus=False)
            yield Label("Type (decision, failure, milestone, lesson, note)",
                        classes="entry-form-label")
            yield Input(d.type, id="entry-type", suggester=SuggestFromList(EPISODE_TYPES),
                        compact=True, select_on_focus=False)
            yield Label("Detail", classes="entry-form-label")
            yield TextArea(d.detail, id="entry-detail", soft_wrap=True, compact=True)
            yield Label("Lesson", classes="entry-form-label")
            yield Input(d.lesson, id="entry-lesson", compact=True, select_on_focus=False)
            yield Label("Tags, comma-separated", classes="entry-form-label")
            yield Input(", ".join(d.tags), id="entry-tags", suggester=TagSuggester(self.known_tags),
                        compact=True, select_on_focus=False)
            if self.known_tags:
                known = ", ".join(self.known_tags[:12])
                yield Static(f"in use: {known}", id="entry-known-tags", markup=False)
            yield Label("Importance (1-10)", classes="entry-form-label")
            # A number is replaced, not edited: its value is selected on focus.
            yield Input(str(d.importance), id="entry-importance", type="integer", max_length=2,
                        compact=True, select_on_focus=True)
            if self.offer_remove:
                yield MarkedCheckbox("Remove the line from the scratchpad (else mark it)",
                                     self.remove_at_first, id="entry-remove")
            yield Static("", id="entry-form-error", markup=False)
            with Horizontal(id="entry-form-buttons"):  # ctrl+s saves, escape cancels
                yield Button("Save", id="entry-save", variant="primary")
                yield Button("Cancel", id="entry-cancel")

    def on_mount(self) -> None:
        self.query_one("#entry-summary", Input).focus()

    def _draft(self) -> EpisodicDraft:
        raw = self.query_one("#entry-importance", Input).value.strip()
        try:
            importance = int(raw) if raw else DEFAULT_IMPORTANCE
        except ValueError:
            raise MemoryInputError(f"importance must be a number 1-10, not {raw!r}") from None
        return EpisodicDraft(
            summary=self.query_one("#entry-summary", Input).value,
            type=self.query_one("#entry-type", Input).value.strip() or "note",
            detail=self.query_one("#entry-detail", TextArea).text,
            lesson=self.query_one("#entry-lesson", Input).value,
            tags=split_tags(self.query_one("#entry-tags", Input).value),
            importance=importance,
            ts=self.draft.ts,
        ).validated()

    def action_save(self) -> None:
        try:
            draft = self._draft()
        except MemoryInputError as exc:
            self.query_one("#entry-form-error", Static).update(f"Not saved: {exc}")
            return
        remove = self.offer_remove and self.query_one("#entry-remove", Checkbox).value
        self.dismiss(EntryFormResult(draft, remove_item=remove))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "entry-save":
            self.action_save()
        else:
            self.action_cancel()

"""The Scratchpad tab: the Markdown in an editor, its items, promote and finish task."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from indexer.memory import (
    ChangedOnDiskError,
    MemoryInputError,
    MemoryNotFoundError,
    ScratchpadItem,
)
from tui.worker_errors import severity_of
from tui.display.log_text import one_line
from tui.display.counts import plural
from tui.screens.confirm import ConfirmScreen, on_yes
from tui.widgets.memory_editor import MemoryEditor
from tui.widgets.memory_entry_form import EntryFormResult, MemoryEntryForm
from tui.widgets.memory_fact_pane import editor_language
from tui.widgets.memory_pick_list import MemoryPickList
from tui.widgets.memory_tier_pane import MemoryTierPane

T = TypeVar("T")
RELOAD_HINT = "ctrl+l reloads the files"  # the memory screen's reload key


def item_label(item: ScratchpadItem, width: int = 60) -> Text:
    if item.promoted_to:
        return Text.assemble(("→ ", "dim"), (one_line(item.text, width), "dim"),
                             (f"  {item.promoted_to}", "dim italic"))
    box = "☑ " if item.checked else "☐ " if item.kind == "checklist" else "• "
    return Text.assemble(box, one_line(item.text, width))


class MemoryScratchpadPane(MemoryTierPane):
    HELP_TITLE = "Scratchpad tab"  # its keys' section in the help screen
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="memory.scratchpad.save"),
        # Both open a form: a modifier each, so letters typed on the list open nothing.
        Binding("ctrl+e", "promote", "Promote", id="memory.scratchpad.promote"),
        Binding("ctrl+f", "finish_task", "Finish task", id="memory.scratchpad.finish"),
    ]

    def on_mount(self) -> None:
        self._refused_drafts: dict[str, EntryFormResult] = {}  # by item text, until promoted
        self.load()

    def compose(self) -> ComposeResult:
        with Horizontal(id="scratch-body"):
            yield MemoryEditor(id="scratch-editor", language=editor_language("markdown"), soft_wrap=True)
            with Vertical(id="scratch-side"):
                yield Label("Items", id="scratch-side-title")
                yield OptionList(id="scratch-items")
                yield Static("enter/^e promote · ^f finish task", id="scratch-side-help")
        yield Static("", id="scratch-status")

    @property
    def editor(self) -> MemoryEditor:
        return self.query_one("#scratch-editor", MemoryEditor)

    def load(self) -> None:
        self._loaded_text = self.store.scratchpad_text()
        self.editor.load_text(self._loaded_text)
        self._fill_items()

    def refresh_view(self) -> None:
        self._fill_items()

    def has_unsaved_edits(self) -> bool:
        return self.editor.text != self._loaded_text

    def _fill_items(self) -> None:
        items = self.query_one("#scratch-items", OptionList)
        keep = items.highlighted
        items.clear_options()
        for item in self.store.scratchpad_items():
            items.add_option(Option(item_label(item), id=f"line-{item.line}"))
        if items.option_count:
            items.highlighted = min(keep or 0, items.option_count - 1)
        count = items.option_count
        self.query_one("#scratch-side-title", Label).update(f"Items ({count})")

    def _status(self, message: str, *, error: bool = False) -> None:
        status = self.query_one("#scratch-status", Static)
        status.set_class(error and bool(message), "-error")
        status.update(Text(message))

    def _highlighted_item(self) -> ScratchpadItem | None:
        items = self.query_one("#scratch-items", OptionList)
        if items.highlighted is None:
            return None
        option_id = items.get_option_at_index(items.highlighted).id or ""
        line = int(option_id.removeprefix("line-"))
        return next((i for i in self.store.scratchpad_items() if i.line == line), None)

    def select_line(self, line: int) -> bool:
        """Highlight the item on ``line`` (1-based) and put the editor's cursor there."""
        items = self.query_one("#scratch-items", OptionList)
        try:
            items.highlighted = items.get_option_index(f"line-{line}")
        except OptionDoesNotExist:
            return False
        self.editor.cursor_location = (line - 1, 0)
        self.editor.scroll_cursor_visible(center=True)
        items.focus()
        return True

    def _refuse_if_unsaved(self) -> bool:
        if self.has_unsaved_edits():
            self.notify("Save (ctrl+s) or reload (ctrl+l) your edit of the scratchpad first.",
                        severity="warning")
            return True
        return False

    # --- save ------------------------------------------------------------------------------

    def action_save(self) -> None:
        text = self.editor.text
        if text and not text.endswith("\n"):
            text += "\n"  # a text file ends with a newline; the editor shows no last empty line
        try:
            self.store.save_scratchpad_text(text)
        except ChangedOnDiskError as exc:
            self._status("Not saved: scratchpad.md changed on disk since it was loaded. "
                         f"Copy your edit, then {RELOAD_HINT}.", error=True)
            self.refused(exc)
            return
        self._loaded_text = self.editor.text
        self._fill_items()
        self._status("Saved scratchpad.md.")
        self.written()

    def _change(self, change: Callable[[], T], refused: str) -> T | None:
        """Run a store change that moves items to episodic memory; a file changed on disk
        (``refused`` says what was not done) or a bad input is reported and gives None."""
        try:
            return change()
        except ChangedOnDiskError as exc:
            self._status(refused, error=True)
            self.refused(exc)
        except (MemoryInputError, MemoryNotFoundError) as exc:
            self.notify(str(exc), severity=severity_of(exc))
        return None

    # --- promote ---------------------------------------------------------------------------

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_promote()

    def action_promote(self) -> None:
        if self._refuse_if_unsaved():
            return
        item = self._highlighted_item()
        if item is None:
            self.notify("Pick an item in the list first.", severity="warning")
            return
        if item.promoted_to:
            self.notify(f"Line {item.line} was already promoted to {item.promoted_to}.",
                        severity="warning")
            return
        kept = self._refused_drafts.get(item.text)  # what was typed before a refused promote
        form = MemoryEntryForm(
            f"Promote line {item.line} to episodic memory",
            kept.draft if kept else self.store.suggest_promotion(item.line),
            known_tags=self.store.known_tags(),
            offer_remove=True,
            remove=kept.remove_item if kept else False,
        )
        self.app.push_screen(form, lambda result: self._promoted(item, result))

    def _promoted(self, item: ScratchpadItem, result: EntryFormResult | None) -> None:
        if result is None:
            return
        entry = self._change(
            lambda: self.store.promote(item.line, self.now(), result.draft, remove=result.remove_item),
            f"Not promoted: a memory file changed on disk since it was loaded; {RELOAD_HINT}, "
            "then promote again.",
        )
        if entry is None:
            self._refused_drafts[item.text] = result
            return
        self._refused_drafts.pop(item.text, None)
        self.load()
        what = "removed" if result.remove_item else "marked"
        self._status(f"Promoted line {item.line} to {entry.id} (line {what}).")
        self.written()

    # --- finish task -----------------------------------------------------------------------

    def action_finish_task(self) -> None:
        if self._refuse_if_unsaved():
            return
        open_items = [i for i in self.store.scratchpad_items() if not i.promoted_to]
        picker = MemoryPickList[int](
            "Finish the task",
            "Choose the items to keep as episodic memories (space toggles, ctrl+s continues). "
            "Everything else is cleared; a copy of the scratchpad goes to .history/ and the "
            "old file stays as scratchpad.md.bak.",
            [(item_label(i, 70), i.line, i.checked) for i in open_items],
        )
        self.app.push_screen(picker, self._picked)

    def _picked(self, lines: list[int] | None) -> None:
        if lines is None:
            return
        items = {i.line: i for i in self.store.scratchpad_items()}
        listed = "\n".join(f"  • {one_line(items[n].text, 60)}" for n in lines if n in items)
        question = (
            (f"Promote {plural(len(lines), 'item')} to episodic memory:\n{listed}\n\n" if lines
             else "Promote nothing.\n\n")
            + "Then clear scratchpad.md (a copy is kept in .history/)."
        )
        self.app.push_screen(ConfirmScreen("Finish the task?", question, yes="Finish task"),
                             on_yes(lambda: self._finish(lines)))

    def _finish(self, lines: list[int]) -> None:
        result = self._change(lambda: self.store.finish_task(lines, self.now()),
                              f"Task not finished: a memory file changed on disk; {RELOAD_HINT}, "
                              "then finish again.")
        if result is None:
            return
        self.load()
        kept = f", copy in .history/{result.history_path.name}" if result.history_path else ""
        self._status(f"Task finished: {plural(len(result.promoted), 'item')} promoted{kept}.")
        self.written()

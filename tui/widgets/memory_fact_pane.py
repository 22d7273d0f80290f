"""The Fact tab: fact.yml in an editor (validated before saving) and its keys to archive."""

from __future__ import annotations

from importlib.util import find_spec

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from indexer.memory import (
    ChangedOnDiskError,
    Fact,
    FactEditError,
    FactFileError,
    MemoryNotFoundError,
)
from tui.worker_errors import severity_of
from tui.display.log_text import one_line
from tui.widgets.memory_editor import MemoryEditor
from tui.widgets.memory_tier_pane import MemoryTierPane


def editor_language(wanted: str) -> str | None:
    """``wanted`` when tree-sitter and its grammar are installed (``textual[syntax]``), else
    None: plain text. ``TextArea.available_languages`` lists the built-in names either way."""
    try:
        found = find_spec("tree_sitter") and find_spec(f"tree_sitter_{wanted}")
    except (ImportError, ValueError):
        return None
    return wanted if found else None


class MemoryFactPane(MemoryTierPane):
    HELP_TITLE = "Fact tab"  # its keys' section in the help screen
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="memory.fact.save"),
        Binding("ctrl+t", "archive_at_cursor", "Archive key at cursor",
                id="memory.fact.archive_at_cursor"),
        # The same keys as in the Episodic tab. A key that writes has a modifier (a letter typed
        # on the list writes nothing); h only shows. The editor keeps what it types.
        Binding("ctrl+x", "archive_highlighted", "Archive", id="memory.fact.archive"),
        Binding("ctrl+z", "restore_highlighted", "Restore", id="memory.fact.restore"),
        Binding("h", "toggle_archived", "Show archived", id="memory.fact.show_archived"),
    ]
    show_archived = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="fact-body"):
            yield MemoryEditor(id="fact-editor", language=editor_language("yaml"), soft_wrap=False)
            with Vertical(id="fact-side"):
                yield Label("Facts", id="fact-side-title")
                yield OptionList(id="fact-keys")
                yield Static("^x archive · ^z restore\nh show archived · enter edit", id="fact-side-help")
        yield Static("", id="fact-status")

    @property
    def editor(self) -> MemoryEditor:
        return self.query_one("#fact-editor", MemoryEditor)

    def on_mount(self) -> None:
        self.load()

    def load(self) -> None:
        self._loaded_text = self.store.fact_text()
        self.editor.load_text(self._loaded_text)
        self._fill_keys()
        error = self.store.fact_error()
        self._status(f"fact.yml does not parse: {error.issues[0]}" if error else "", error=True)

    def refresh_view(self) -> None:
        self._fill_keys()

    def has_unsaved_edits(self) -> bool:
        return self.editor.text != self._loaded_text

    def _facts(self) -> list[Fact]:
        try:
            return self.store.facts(include_archived=self.show_archived)
        except FactFileError:
            return []

    def _fill_keys(self) -> None:
        """List the keys; the highlight stays on the key it was on (or at its place in the
        list, when that key is now hidden)."""
        keys = self.query_one("#fact-keys", OptionList)
        kept_key, kept_index = self._highlighted_key(), keys.highlighted
        keys.clear_options()
        for fact in self._facts():
            label = Text(one_line(fact.key, 24), style="italic dim" if fact.archived else "")
            if fact.archived:
                label.append(" (archived)")
            keys.add_option(Option(label, id=fact.key))
        if keys.option_count:
            try:
                keys.highlighted = keys.get_option_index(kept_key or "")
            except OptionDoesNotExist:
                keys.highlighted = min(kept_index or 0, keys.option_count - 1)
        self.query_one("#fact-side-title", Label).update(
            "Facts (with archived)" if self.show_archived else "Facts"
        )

    def _status(self, message: str, *, error: bool = False) -> None:
        status = self.query_one("#fact-status", Static)
        status.set_class(error and bool(message), "-error")
        status.update(Text(message))

    # --- saving ----------------------------------------------------------------------------

    def action_save(self) -> None:
        text = self.editor.text
        if text and not text.endswith("\n"):
            text += "\n"  # a text file ends with a newline; the editor shows no last empty line
        issues = self.store.validate_facts(text)
        if issues:
            first = issues[0]
            self._status(f"Not saved: {first}", error=True)
            self.editor.cursor_location = (max(0, first.line - 1), max(0, first.column - 1))
            self.notify(f"fact.yml not saved: {first}", severity="error")
            return
        try:
            self.store.save_fact_text(text)
        except ChangedOnDiskError as exc:
            self._status("Not saved: fact.yml changed on disk since it was loaded. "
                         "Copy your edit, then ctrl+l reloads the file.", error=True)
            self.refused(exc)
            return
        except FactFileError as exc:  # validate() passed, so only on odd input
            self._status(f"Not saved: {exc}", error=True)
            return
        self._loaded_text = self.editor.text
        self._fill_keys()
        self._status("Saved fact.yml.")
        self.written()

    # --- archive / restore -----------------------------------------------------------------

    def key_at_cursor(self) -> str | None:
        """The top-level fact whose block holds the editor's cursor."""
        row = self.editor.cursor_location[0] + 1
        owner = None
        for fact in sorted(self._facts_all(), key=lambda f: f.line):
            if fact.line <= row:
                owner = fact.key
        return owner

    def _facts_all(self) -> list[Fact]:
        try:
            return self.store.facts(include_archived=True)
        except FactFileError:
            return []

    def _highlighted_key(self) -> str | None:
        keys = self.query_one("#fact-keys", OptionList)
        if keys.highlighted is None:
            return None
        return keys.get_option_at_index(keys.highlighted).id

    def select_key(self, key: str) -> bool:
        """Put the editor's cursor on the fact ``key`` (the key list follows); False if absent."""
        fact = next((f for f in self._facts_all() if f.key == key), None)
        if fact is None:
            return False
        self.editor.cursor_location = (max(0, fact.line - 1), 0)
        self.editor.scroll_cursor_visible(center=True)
        self.editor.focus()
        return True

    def action_archive_at_cursor(self) -> None:
        key = self.key_at_cursor()
        if key is None:
            self.notify("The cursor is not inside a fact.", severity="warning")
            return
        self.archive_key(key)

    def archive_key(self, key: str) -> None:
        self._change_key(key, archive=True)

    def restore_key(self, key: str) -> None:
        self._change_key(key, archive=False)

    def _change_key(self, key: str, *, archive: bool) -> None:
        if self.has_unsaved_edits():
            self.notify("Save (ctrl+s) or reload (ctrl+l) your edit of fact.yml first.",
                        severity="warning")
            return
        fact = next((f for f in self._facts_all() if f.key == key), None)
        if fact is not None and fact.archived == archive:
            state = "already archived" if archive else "not archived: there is nothing to restore"
            self.notify(f"{key!r} is {state}.", severity="warning")
            return
        cursor = self.editor.cursor_location
        scroll = self.editor.scroll_offset
        try:
            if archive:
                self.store.archive_fact(key, self.now())
            else:
                self.store.restore_fact(key)
        except ChangedOnDiskError as exc:
            self.refused(exc)
            return
        except (FactEditError, FactFileError, MemoryNotFoundError) as exc:
            self.notify(str(exc), severity=severity_of(exc))
            return
        self.load()
        self._put_cursor_back(cursor, scroll)
        self._status(f"{'Archived' if archive else 'Restored'} {key!r}.")
        self.written()

    def _put_cursor_back(self, cursor: tuple[int, int], scroll) -> None:
        """After a rewrite the editor shows the same place, not line 1."""
        editor = self.editor
        last = editor.document.line_count - 1
        row = min(cursor[0], last)
        editor.cursor_location = (row, min(cursor[1], len(editor.document.get_line(row))))
        editor.scroll_to(scroll.x, scroll.y, animate=False, immediate=True)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """enter on a key: edit it (the editor's cursor on its line)."""
        event.stop()
        if event.option.id is not None:
            self.select_key(event.option.id)

    def action_archive_highlighted(self) -> None:
        key = self._highlighted_key()
        if key is not None:
            self.archive_key(key)

    def action_restore_highlighted(self) -> None:
        key = self._highlighted_key()
        if key is not None:
            self.restore_key(key)

    def action_toggle_archived(self) -> None:
        self.show_archived = not self.show_archived
        self._fill_keys()

    def on_text_area_selection_changed(self, event: MemoryEditor.SelectionChanged) -> None:
        """The key list follows the cursor while you edit (not while you work in the list)."""
        if not self.editor.has_focus:
            return
        key = self.key_at_cursor()
        keys = self.query_one("#fact-keys", OptionList)
        if key is None:
            return
        try:
            keys.highlighted = keys.get_option_index(key)
        except OptionDoesNotExist:  # an archived key while archived ones are hidden
            pass


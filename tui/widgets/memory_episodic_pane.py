"""The Episodic tab: a sortable, filterable table with a strength detail pane, the decayed
view, and add / edit / archive / restore / link."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import DataTable, Input, Static

from indexer.memory import (
    DEFAULT_DECAY_THRESHOLD,
    SORTS,
    EpisodicFilter,
    ChangedOnDiskError,
    EpisodicDraft,
    EpisodicEntry,
    MemoryInputError,
    MemoryNotFoundError,
    MemoryStore,
    ScoredEntry,
    sort_scored,
)
from indexer.memory.citations import CitationLog
from indexer.memory.filter import filter_placeholder
from tui.worker_errors import severity_of
from tui.display.log_text import one_line
from tui.display.counts import plural
from tui.screens.confirm import ConfirmScreen, on_yes
from tui.widgets.memory_entry_detail import MemoryEntryDetail
from tui.widgets.memory_episodic_rows import COLUMNS, entry_row
from tui.widgets.memory_entry_form import EntryFormResult, MemoryEntryForm
from tui.widgets.memory_link_form import MemoryLinkForm
from tui.widgets.memory_tier_pane import MemoryTierPane

class MemoryEpisodicPane(MemoryTierPane):
    HELP_TITLE = "Episodic tab"  # its keys' section in the help screen
    BINDINGS = [
        # A key that writes or opens a form has a modifier: a letter typed on the table only
        # shows, sorts or marks (a form would take the letters that follow, and enter saves).
        Binding("ctrl+n", "add", "Add", id="memory.episodic.add"),
        Binding("ctrl+e", "edit", "Edit", id="memory.episodic.edit"),
        Binding("ctrl+x", "archive", "Archive", id="memory.episodic.archive"),
        Binding("ctrl+z", "restore", "Restore", id="memory.episodic.restore"),
        Binding("ctrl+t", "pin", "Pin/unpin (no decay)", id="memory.episodic.pin", show=False),
        Binding("ctrl+w", "refresh", "Refresh (decay starts again)", id="memory.episodic.refresh", show=False),
        Binding("h", "toggle_archived", "Show archived", id="memory.episodic.show_archived"),
        Binding("d", "toggle_decayed", "Decayed", id="memory.episodic.decayed"),
        Binding("s", "cycle_sort", "Sort", id="memory.episodic.sort"),
        Binding("ctrl+k", "link", "Link", id="memory.episodic.link"),
        Binding("ctrl+u", "unlink", "Unlink", id="memory.episodic.unlink"),
        Binding("space", "mark", "Mark", id="memory.episodic.mark", show=False),
        Binding("ctrl+d", "archive_all_decayed", "Archive all decayed",
                id="memory.episodic.archive_all_decayed", show=False),
        Binding("slash", "focus_filter", "Filter", id="memory.episodic.filter", show=False),
    ]

    def __init__(
        self,
        store: MemoryStore,
        now: Callable[[], datetime],
        *,
        threshold: float = DEFAULT_DECAY_THRESHOLD,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(store, now, id=id, classes=classes)
        self.threshold = threshold
        self.sort_by = "strength"
        self.sort_reverse = False
        self.decayed_view = False
        self.show_archived = False
        self.marked: set[str] = set()
        self.rows: list[ScoredEntry] = []

    def compose(self) -> ComposeResult:
        with Horizontal(id="episodic-bar"):
            yield Input(placeholder=filter_placeholder(),
                        id="episodic-filter")
            yield Static("", id="episodic-view")
        table: DataTable[Text | str] = DataTable(id="episodic-table", cursor_type="row",
                                                zebra_stripes=True)
        for key, label, width in COLUMNS:
            table.add_column(label, key=key, width=width)
        yield table
        yield MemoryEntryDetail(id="episodic-detail")

    @property
    def table(self) -> DataTable[Text | str]:
        return self.query_one("#episodic-table", DataTable)

    def on_mount(self) -> None:
        self.load()

    # --- filling the table -----------------------------------------------------------------

    def load(self) -> None:
        self.marked.clear()
        self.refresh_view()

    def _current(self) -> list[ScoredEntry]:
        now = self.now()
        if self.decayed_view:
            found = self.store.decayed(now, self.threshold)
        else:
            found = self.store.scored(now, include_archived=self.show_archived)
        wanted = EpisodicFilter.parse(self.query_one("#episodic-filter", Input).value)
        return sort_scored(wanted.apply(found, now), self.sort_by, self._reversed())

    def _reversed(self) -> bool:
        """The decayed view lists the weakest first unless the user flips it."""
        return self.sort_reverse != (self.decayed_view and self.sort_by == "strength")

    def refresh_view(self) -> None:
        """Redraw; the cursor stays on its entry, or at its place when the entry left the view
        (archived while archived entries are hidden)."""
        now = self.now()
        keep, keep_row = self.selected_id(), self.table.cursor_row
        self.rows = self._current()
        self.marked &= {s.entry.id for s in self.rows}
        table = self.table
        table.clear()
        changed = CitationLog(self.store.folder).changed_refs()
        for s in self.rows:
            table.add_row(*entry_row(s, now, self.threshold, marked=s.entry.id in self.marked,
                                     source_changed=s.entry.id in changed), key=s.entry.id)
        if keep is not None and any(s.entry.id == keep for s in self.rows):
            table.move_cursor(row=table.get_row_index(keep))
        elif self.rows and keep_row > 0:
            table.move_cursor(row=min(keep_row, len(self.rows) - 1))
        self._show_view_label()
        self._show_detail()

    def _show_view_label(self) -> None:
        arrow = "↑" if self._reversed() else "↓"
        parts = [f"sort: {self.sort_by} {arrow}"]
        if self.decayed_view:
            parts.append(f"decayed (< {self.threshold:.2f}): {len(self.rows)}")
            if self.marked:
                parts.append(f"{len(self.marked)} marked")
        else:
            parts.append(plural(len(self.rows), "entry", "entries"))
            parts.append("with archived" if self.show_archived else "archived hidden")
        self.query_one("#episodic-view", Static).update(Text(" · ".join(parts)))
        self.set_class(self.decayed_view, "-decayed")

    def selected(self) -> ScoredEntry | None:
        table = self.table
        if not self.rows or table.cursor_row < 0 or table.cursor_row >= len(self.rows):
            return None
        row_key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return next((s for s in self.rows if s.entry.id == row_key.value), None)

    def selected_id(self) -> str | None:
        chosen = self.selected()
        return chosen.entry.id if chosen else None

    def _show_detail(self) -> None:
        detail = self.query_one("#episodic-detail", MemoryEntryDetail)
        chosen = self.selected()
        if chosen is None:
            if self.decayed_view:
                detail.show_nothing(f"No entries under strength {self.threshold:.2f}.")
            else:
                detail.show_nothing("No entries. Press a to add one.")
            return
        links = self.store.links(chosen.entry.id)
        detail.show_entry(chosen.entry, chosen.breakdown, links, self.threshold)

    def select_entry(self, entry_id: str) -> bool:
        """Put the cursor on ``entry_id``, leaving a filter or view that hides it; False if the
        store has no such entry."""
        if not any(s.entry.id == entry_id for s in self.rows):
            try:
                entry = self.store.entry(entry_id)
            except LookupError:
                return False
            self.query_one("#episodic-filter", Input).value = ""
            self.decayed_view = False
            self.show_archived = self.show_archived or entry.archived
            self.refresh_view()
        if not any(s.entry.id == entry_id for s in self.rows):
            return False
        self.table.move_cursor(row=self.table.get_row_index(entry_id))
        self.table.focus()
        return True

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_edit()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        column = str(event.column_key.value)
        if column not in SORTS:
            return
        if column == self.sort_by:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_by, self.sort_reverse = column, False
        self.refresh_view()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "episodic-filter":
            event.stop()
            self.refresh_view()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "episodic-filter":
            event.stop()
            self.table.focus()

    # --- view actions ----------------------------------------------------------------------

    def action_focus_filter(self) -> None:
        self.query_one("#episodic-filter", Input).focus()

    def action_cycle_sort(self) -> None:
        self.sort_by = SORTS[(SORTS.index(self.sort_by) + 1) % len(SORTS)]
        self.sort_reverse = False
        self.refresh_view()

    def action_toggle_archived(self) -> None:
        self.show_archived = not self.show_archived
        self.refresh_view()

    def action_toggle_decayed(self) -> None:
        self.decayed_view = not self.decayed_view
        self.marked.clear()
        self.refresh_view()

    def action_mark(self) -> None:
        entry_id = self.selected_id()
        if entry_id is None:
            return
        self.marked.symmetric_difference_update({entry_id})
        row = self.table.cursor_row
        self.table.update_cell(entry_id, "mark", "●" if entry_id in self.marked else " ")
        self.table.move_cursor(row=min(row + 1, len(self.rows) - 1))
        self._show_view_label()

    # --- writes ----------------------------------------------------------------------------

    def _write(self, change: Callable[[], object], done: str) -> bool:
        try:
            change()
        except ChangedOnDiskError as exc:
            self.refused(exc)
            return False
        except (MemoryInputError, MemoryNotFoundError) as exc:
            self.notify(str(exc), severity=severity_of(exc))
            return False
        self.refresh_view()
        self.notify(done)
        self.written()
        return True

    def action_add(self) -> None:
        form = MemoryEntryForm("Add an episodic memory", known_tags=self.store.known_tags())
        self.app.push_screen(form, self._added)

    def _added(self, result: EntryFormResult | None) -> None:
        if result is None:
            return
        added: list[EpisodicEntry] = []
        if self._write(lambda: added.append(self.store.add(result.draft, self.now())),
                       "Added to episodic.jsonl.") and added:
            if any(s.entry.id == added[0].id for s in self.rows):
                self.table.move_cursor(row=self.table.get_row_index(added[0].id))

    def action_edit(self) -> None:
        chosen = self.selected()
        if chosen is None:
            return
        e = chosen.entry
        draft = EpisodicDraft(summary=e.summary, type=e.type, detail=e.detail, lesson=e.lesson,
                              tags=e.tags, importance=e.importance, ts=e.ts)
        form = MemoryEntryForm(f"Edit {e.id}", draft, known_tags=self.store.known_tags())
        self.app.push_screen(form, lambda result: self._edited(e, result))

    def _edited(self, entry: EpisodicEntry, result: EntryFormResult | None) -> None:
        if result is None:
            return
        d = result.draft
        new = {"summary": d.summary, "type": d.type, "detail": d.detail, "lesson": d.lesson,
               "tags": d.tags, "importance": d.importance}
        old = {"summary": entry.summary, "type": entry.type, "detail": entry.detail,
               "lesson": entry.lesson, "tags": entry.tags, "importance": entry.importance}
        # Only what changed, so a default (importance 5) is never written into an old line.
        changes = {k: v for k, v in new.items() if v != old[k]}
        if not changes:
            self.notify("Nothing changed.")
            return
        if "tags" in changes:
            changes["tags"] = list(d.tags)
        self._write(lambda: self.store.update(entry.id, **changes), f"Saved {entry.id}.")

    def action_archive(self) -> None:
        ids = [s.entry.id for s in self.rows if s.entry.id in self.marked]
        if not ids:
            chosen = self.selected_id()
            ids = [chosen] if chosen else []
        if not ids:
            return
        noun = plural(len(ids), "entry", "entries") if len(ids) > 1 else ids[0]
        self._write(lambda: self.store.archive_entries(ids, self.now()), f"Archived {noun}.")

    def action_restore(self) -> None:
        chosen = self.selected()
        if chosen is None:
            return
        if not chosen.entry.archived:
            self.notify(f"{chosen.entry.id} is not archived.", severity="warning")
            return
        self._write(lambda: self.store.restore_entry(chosen.entry.id, self.now()),
                    f"Restored {chosen.entry.id} (refreshed: its decay starts again).")

    def action_pin(self) -> None:
        """Pin the entry under the cursor (it stops decaying), or unpin it."""
        chosen = self.selected()
        if chosen is None:
            return
        pinned = not chosen.entry.pinned
        done = "Pinned" if pinned else "Unpinned"
        self._write(lambda: self.store.pin_entry(chosen.entry.id, pinned),
                    f"{done} {chosen.entry.id}" + (": it no longer decays." if pinned else ": it decays again."))

    def action_refresh(self) -> None:
        """Start the entry's strength again: its decay counts from now."""
        chosen = self.selected()
        if chosen is None:
            return
        self._write(lambda: self.store.refresh_entry(chosen.entry.id, self.now()),
                    f"Refreshed {chosen.entry.id}: its decay starts again.")

    def action_archive_all_decayed(self) -> None:
        weak = self.store.decayed(self.now(), self.threshold)
        if not weak:
            self.notify(f"No entries under strength {self.threshold:.2f}.")
            return
        listed = "\n".join(
            f"  {s.entry.id}  {s.strength:.2f}  {one_line(s.entry.summary, 44)}" for s in weak[:12]
        )
        more = f"\n  … and {len(weak) - 12} more" if len(weak) > 12 else ""
        question = (
            f"Archive all {plural(len(weak), 'entry', 'entries')} under strength {self.threshold:.2f}? "
            f"They stay in episodic.jsonl, marked archived, and can be restored.\n\n"
            f"{listed}{more}"
        )
        ids = [s.entry.id for s in weak]
        self.app.push_screen(
            ConfirmScreen(f"Archive {plural(len(weak), 'decayed entry', 'decayed entries')}", question,
                          yes="Archive all"),
            on_yes(lambda: self._write(lambda: self.store.archive_entries(ids, self.now()),
                                       f"Archived {plural(len(ids), 'decayed entry', 'decayed entries')}.")),
        )

    def action_link(self) -> None:
        chosen = self.selected()
        if chosen is None:
            return
        me = chosen.entry.id
        linked = {link.other(me) for link in self.store.links(me)}
        choices = [(e.id, e.summary) for e in self.store.entries()
                   if e.id != me and e.id not in linked]
        if not choices:
            self.notify("No other entry to link to.", severity="warning")
            return

        def link_to(other: str | None) -> None:
            if other:
                self._write(lambda: self.store.link(me, other, self.now()), f"Linked {me} and {other}.")

        self.app.push_screen(MemoryLinkForm(f"Link {me} to …", choices), link_to)

    def action_unlink(self) -> None:
        chosen = self.selected()
        if chosen is None:
            return
        me = chosen.entry.id
        summaries = {e.id: e.summary for e in self.store.entries(include_archived=True)}
        choices = [(link.other(me), summaries.get(link.other(me), ""))
                   for link in self.store.links(me)]
        if not choices:
            self.notify(f"{me} has no links.", severity="warning")
            return

        def unlink_from(other: str | None) -> None:
            if other:
                self._write(lambda: self.store.unlink(me, other, self.now()), f"Unlinked {me} and {other}.")

        self.app.push_screen(MemoryLinkForm(f"Remove the link from {me} to …", choices), unlink_from)

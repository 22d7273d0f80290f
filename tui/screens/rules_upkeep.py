"""What keeps the rule review honest over time, mixed into ``RulesScreen``: ``u`` undoes the
last decision made there (wherever the cursor is), and rules.jsonl is looked at every
``POLL_SECONDS`` (its size and time first, its hash only when those moved) so rules proposed or
changed elsewhere show up, and "Proposed 6 seconds ago" keeps counting."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.fileio import ChangedOnDiskError
from indexer.rules import PENDING, Rule, RuleError, RuleStore
from tui.widgets.rule_detail import RuleDetail

if TYPE_CHECKING:
    from collections.abc import Callable

POLL_SECONDS = 2.0


def file_signature(path: Path) -> tuple[int, int] | None:
    """(mtime, size) of a file, None when it is missing: a cheap "did it change?"."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


class RulesUpkeep:
    """Mixin for the rules screen (which provides the attributes below)."""

    store: RuleStore
    shown: Rule | None
    edited_text: str | None
    actor: str | None
    refresh_rules: Callable[..., None]
    _timestamp: Callable[[], float]
    _changed_underneath: Callable[[str, str], None]

    def start_upkeep(self) -> None:
        """Called on mount: no decision yet, and the file as it is now."""
        self.decided: list[list[str]] = []  # the rule ids of each decision made here, last one last
        self._signature = file_signature(self.store.path)
        self.set_interval(POLL_SECONDS, self.poll, name="rules-poll")  # type: ignore[attr-defined]

    def remember_decision(self, rule_ids: list[str]) -> None:
        self.decided.append(list(rule_ids))

    # --- outside changes and fresh times ----------------------------------------------------

    def poll(self) -> None:
        """Reload when rules.jsonl changed elsewhere; repaint the relative times either way."""
        signature = file_signature(self.store.path)
        if signature != self._signature:
            self._signature = signature
            if self.store.is_stale():
                self.reload_keeping_edit()
                return
        if self.shown is not None:
            self.repaint_detail()

    def reload_keeping_edit(self) -> None:
        """Show the file as it is now; an edit waiting for its second y survives when its rule
        did not change meanwhile."""
        shown, edited = self.shown, self.edited_text
        self.store.reload()
        self._signature = file_signature(self.store.path)
        self.refresh_rules()
        if shown is None or edited is None or self.shown is None or self.shown.id != shown.id:
            return
        if self.shown.text == shown.text:
            self.edited_text = edited
            self.repaint_detail()
        else:
            self.notify(f"{shown.id} was changed elsewhere; your edit was dropped.",  # type: ignore[attr-defined]
                        severity="warning")

    def repaint_detail(self) -> None:
        """The shown rule again (fresh relative times), at the same scroll position."""
        if self.shown is None:
            return
        detail = self.query_one("#rule-detail", RuleDetail)  # type: ignore[attr-defined]
        y = detail.scroll_y
        self.paint_rule(self.shown, edited_text=self.edited_text)
        detail.scroll_to(y=y, animate=False, immediate=True)

    def paint_rule(self, rule: Rule, *, edited_text: str | None = None) -> None:
        """The detail pane for ``rule``, with why its approval does not count where it does
        not: every paint (the first, an edit, the poll's fresh times) must carry that note."""
        detail = self.query_one("#rule-detail", RuleDetail)  # type: ignore[attr-defined]
        detail.show_rule(rule, self._timestamp(), edited_text=edited_text, note=self.store.verification_note(rule),
                         made=self.store.origin_note(rule))

    # --- undo -------------------------------------------------------------------------------

    def action_back_to_pending(self) -> None:
        """The highlighted rule back to pending, whoever decided it (u undoes your last one)."""
        self._decide("undo")  # type: ignore[attr-defined]

    def action_undo_last(self) -> None:
        """Undo the last decision made on this screen (a bulk approval as a whole): its rules
        go back to pending, whatever is highlighted."""
        if not self.decided:
            self.notify("No decision to undo here yet. ctrl+u sends the highlighted rule back to pending.",  # type: ignore[attr-defined]
                        severity="warning")
            return
        ids = self.decided.pop()
        undone: list[str] = []
        try:
            for rule_id in ids:
                if self.store.get(rule_id).status != PENDING:
                    self.store.undo(rule_id, now=self._timestamp(), actor=self.actor)
                    undone.append(rule_id)
        except ChangedOnDiskError:
            self._changed_underneath(ids[0], "The rules file changed on disk; it was reloaded. "
                                             "Nothing more was undone.")
            return
        except (RuleError, LookupError) as exc:
            self.notify(str(exc), severity="error")  # type: ignore[attr-defined]
            return
        if not undone:
            self.notify(f"{', '.join(ids)}: already pending, nothing to undo.",  # type: ignore[attr-defined]
                        severity="warning")
            return
        what = f"{undone[0]} is" if len(undone) == 1 else f"{len(undone)} rules are"
        self.notify(f"Undone: {what} pending again.")  # type: ignore[attr-defined]
        self.shown = None
        self.refresh_rules(select=undone[0])

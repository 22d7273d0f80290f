"""The rule review: pending rules proposed by agents, each read in full and decided by a person.

Approval is bound to the text on screen: the screen keeps the ``Rule`` it displayed and
passes exactly that text to ``RuleStore.approve``; if the stored text changed meanwhile the
store refuses, and the screen reloads and shows the new text instead. Who may approve (a
person at a terminal, the passphrase, a project folder's trust) and what keeps the review honest
over time (undo, rules.jsonl changed elsewhere) are parts of the same screen, kept here with it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static, Tab, Tabs
from textual.widgets.option_list import Option, OptionDoesNotExist

from indexer.config import MemoryFolder, resolve_memory_dir, resolve_memory_folder
from indexer.memory.citations import CitationLog
from indexer.memory.trust import ALLOWED, FolderNotAllowable, FolderTrust, allow_folder, folder_trust
from indexer.rules import (
    APPROVED,
    ARCHIVED,
    PENDING,
    REJECTED,
    Rule,
    RuleError,
    RuleStore,
    TextChangedError,
)
from indexer.rules.origin import approval_origin, detached_reason
from indexer.rules.review import approval_refusal
from indexer.rules.signing import ApprovalKeyError, key_is_set_up, set_up, unlock, unlocked_key
from indexer.text.safe import suspicious_characters
from indexer.util.fileio import ChangedOnDiskError
from tui.worker_errors import severity_of
from tui.app_context import AppContext
from tui.screens.confirm import ConfirmScreen, on_yes
from tui.screens.passphrase import PassphraseScreen
from tui.widgets.key_footer import KeyFooter
from tui.widgets.rule_detail import RuleDetail
from tui.widgets.rule_dialogs import allow_folder_question, bulk_question, hidden_characters_question
from tui.widgets.rule_edit_form import RuleEditForm
from tui.widgets.rule_row import rule_line
from tui.widgets.status_bar import StatusBar

FILTERS = (PENDING, APPROVED, REJECTED, ARCHIVED, "all")
BULK_LIMIT = 20  # a bulk approval lists every rule it approves; more than this would not fit


def person_at_terminal() -> str | None:
    """Why nobody should approve from this app, or None (``indexer.rules.review``)."""
    return approval_refusal(os.environ)


POLL_SECONDS = 2.0


def file_signature(path: Path) -> tuple[int, int] | None:
    """(mtime, size) of a file, None when it is missing: a cheap "did it change?"."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class RulesScreen(Screen[None]):
    """Review proposed rules: approve exactly what is shown, reject, edit, undo."""
    HELP_TITLE = "Rules"  # its keys' section in the help screen

    CSS_PATH = "../memory_rules.tcss"
    # A decision writes the rules file and an edit or an "all" opens a form: each has ctrl, so
    # letters typed here by mistake ("yaml") decide nothing. Plain letters only move and show.
    BINDINGS = [
        Binding("ctrl+y", "approve", "Approve", id="rules.approve"),
        Binding("ctrl+n", "reject", "Reject", id="rules.reject"),
        Binding("ctrl+e", "edit", "Edit", id="rules.edit"),
        Binding("s", "skip", "Skip", id="rules.skip"),
        Binding("ctrl+z", "undo_last", "Undo last decision", id="rules.undo"),
        Binding("ctrl+u", "back_to_pending", "Back to pending", id="rules.back_to_pending", show=False),
        Binding("ctrl+a", "approve_all", "Approve all…", id="rules.approve_all"),
        Binding("o", "open_session", "Open session", id="rules.open_session"),
        Binding("ctrl+g", "citations", "Cited sources", id="rules.citations", show=False),
        Binding("ctrl+t", "allow_folder", "Allow folder…", id="rules.allow_folder"),
        Binding("f", "next_filter", "Filter", id="rules.filter"),
        Binding("ctrl+l", "reload", "Reload", id="rules.reload", show=False),
        Binding("q,escape", "leave", "Leave", id="rules.leave"),
    ]

    @dataclass
    class OpenSession(Message):
        """Open the transcript of the session a rule came from."""

        session_id: str

    @dataclass
    class PendingCountChanged(Message):
        """How many rules wait for review (pending + changed since approval)."""

        count: int

    @dataclass
    class Leave(Message):
        """``q`` on a screen that cannot be dismissed (an app mode): the app decides where to go."""

    def __init__(
        self,
        store: RuleStore | None = None,
        *,
        now: Callable[[], datetime] = utc_now,
        actor: str | None = None,
        initial_filter: str = PENDING,
        context: AppContext | None = None,
        approval_gate: Callable[[], str | None] = person_at_terminal,
        folder: MemoryFolder | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.store = store if store is not None else RuleStore(resolve_memory_dir()[0])
        self.now = now
        self.actor = actor  # who decides; the store uses the OS user name when None
        self.status_filter = initial_filter
        self.shown: Rule | None = None  # exactly what the detail pane displays
        self.edited_text: str | None = None  # an edit waiting for a second y
        self.context = context  # the app's: its status line, and the memory folder the rules follow
        self.approval_gate = approval_gate  # asked before every approval: None means go ahead
        self.folder = folder  # where the rules came from, for its trust; None: resolved like the CLI

    def compose(self) -> ComposeResult:
        yield Static("", id="rules-header")
        yield Tabs(*[Tab(name.capitalize(), id=f"filter-{name}") for name in FILTERS],
                   active=f"filter-{self.status_filter}", id="rules-filter")
        with Horizontal(id="rules-body"):
            yield OptionList(id="rules-list")
            yield RuleDetail(id="rule-detail")
        yield StatusBar(self.context)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.start_upkeep()
        self.refresh_rules()
        self.query_one("#rules-list", OptionList).focus()
        if self.context is not None:
            self.context.watch(self, "memory_generation", self._folder_changed, init=False)
            self.check_citations()

    def _changed_sources(self) -> set[str]:
        """The rules whose cited source changed, as last checked (``rule:<id>``)."""
        try:
            return CitationLog(self.store.memory_dir).changed_refs()
        except OSError:
            return set()

    @work(thread=True, exclusive=True, group="rules-citations", exit_on_error=False)
    def check_citations(self) -> None:
        """Check what the rules cite, so one whose source changed says so in its row."""
        from tui.screens.citations import recheck_citations

        assert self.context is not None
        if recheck_citations(self.context, self.store.memory_dir):
            self.app.call_from_thread(self.refresh_rules)

    def _folder_changed(self, _generation: int) -> None:
        """Another memory folder was opened: its rules are the ones to review."""
        assert self.context is not None
        self.store = self.context.rule_store()
        self.shown = None
        self.refresh_rules()

    def on_screen_resume(self) -> None:
        if self.store.is_stale():
            self.reload_keeping_edit()

    # --- list and detail -------------------------------------------------------------------

    def _timestamp(self) -> float:
        return self.now().timestamp()

    def visible_rules(self) -> list[Rule]:
        return self.store.rules(self.status_filter)

    def refresh_rules(self, select: str | None = None) -> None:
        """Redraw the list (keeping or moving to ``select``) and the counts."""
        keep = select or (self.shown.id if self.shown else None)
        rules = self.visible_rules()
        options = self.query_one("#rules-list", OptionList)
        options.clear_options()
        changed = self._changed_sources()
        options.add_options([Option(rule_line(r, source_changed=f"rule:{r.id}" in changed), id=r.id) for r in rules])
        counts = {name: len(self.store.rules(name)) for name in FILTERS}
        tabs = self.query_one("#rules-filter", Tabs)
        for name in FILTERS:
            tabs.query_one(f"#filter-{name}", Tab).label = f"{name.capitalize()} {counts[name]}"
        header = Text(no_wrap=True, overflow="ellipsis")
        header.append("Rules ", style="bold")
        waiting = counts[PENDING]
        header.append(f" {waiting} waiting for review" if waiting else " nothing to review")
        trust = self.folder_trust()
        if trust is not None and trust.state != ALLOWED and trust.folder.is_project:
            header.append(f"  ·  ⚠ project folder {trust.state}: its rules do not reach agents "
                          "(ctrl+t allows it)", style="bold")
        else:
            header.append("  ·  agents propose, you approve exactly the text shown", style="dim")
        self.query_one("#rules-header", Static).update(header)
        index = 0
        if keep is not None:
            try:
                index = options.get_option_index(keep)
            except OptionDoesNotExist:
                index = 0
        if rules:
            options.highlighted = min(index, len(rules) - 1)
        self._show(rules[options.highlighted] if rules and options.highlighted is not None
                   else None)
        self.post_message(self.PendingCountChanged(waiting))

    def _show(self, rule: Rule | None) -> None:
        self.shown = rule
        self.edited_text = None
        detail = self.query_one("#rule-detail", RuleDetail)
        if rule is None:
            noun = "rules" if self.status_filter == "all" else f"{self.status_filter} rules"
            detail.show_nothing(f"No {noun}.")
        else:
            self.paint_rule(rule)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is None:
            return
        if self.shown is not None and self.shown.id == event.option.id:
            return
        self._show(self.store.get(event.option.id))

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if event.tab is None or event.tab.id is None:
            return
        wanted = event.tab.id.removeprefix("filter-")
        if wanted != self.status_filter:
            self.status_filter = wanted
            self.shown = None
            self.refresh_rules()

    # --- decisions -------------------------------------------------------------------------

    def _changed_underneath(self, rule_id: str, message: str) -> None:
        """Refuse, reload, and put the current text on screen."""
        self.store.reload()
        self.shown = None
        self.refresh_rules(select=rule_id)
        self.notify(message, title="Nothing was approved", severity="error", timeout=10)

    def action_approve(self) -> None:
        rule = self.shown
        if rule is None or self._refused():
            return
        text = self.edited_text if self.edited_text is not None else rule.text
        if suspicious_characters(text):
            title, question = hidden_characters_question(rule.id, text)
            edited = self.edited_text
            self.app.push_screen(ConfirmScreen(title, question, yes="Approve with these characters"),
                                 on_yes(lambda: self.with_key(lambda: self._approve_shown(rule, edited))))
            return
        edited = self.edited_text
        self.with_key(lambda: self._approve_shown(rule, edited))

    def _approve_shown(self, rule: Rule, edited_text: str | None) -> None:
        """Approve ``rule`` (or the edit of it) as shown, if it is still what is on screen."""
        if self.shown is None or self.shown.id != rule.id or self.edited_text != edited_text:
            self.notify("The selection changed; nothing was approved.", severity="warning")
            return
        try:
            if self.edited_text is not None:
                done = self.store.edit_and_approve(rule.id, rule.text, self.edited_text,
                                                   now=self._timestamp(), approver=self.actor)
                what = f"Approved your edit of {done.id}."
            else:
                done = self.store.approve(rule.id, rule.text, now=self._timestamp(),
                                          approver=self.actor)
                what = f"Approved {done.id}."
        except (TextChangedError, ChangedOnDiskError):
            self._changed_underneath(
                rule.id,
                f"{rule.id} was changed after it was shown. Its current text is on screen now: "
                "read it again before approving.",
            )
            return
        except RuleError as exc:
            self.notify(str(exc), severity=severity_of(exc))
            return
        self.notify(what)
        self.remember_decision([rule.id])
        self._after_decision(rule.id)

    def action_reject(self) -> None:
        self._decide("reject")

    def _decide(self, action: str) -> None:
        rule = self.shown
        if rule is None:
            return
        try:
            if action == "reject":
                self.store.reject(rule.id, now=self._timestamp(), actor=self.actor)
            else:
                self.store.undo(rule.id, now=self._timestamp(), actor=self.actor)
        except ChangedOnDiskError:
            self._changed_underneath(rule.id, "The rules file changed on disk; it was reloaded. "
                                              "Nothing was changed.")
            return
        except RuleError as exc:
            self.notify(str(exc), severity=severity_of(exc))
            return
        self.notify(f"Rejected {rule.id}." if action == "reject"
                    else f"{rule.id} is pending again.")
        if action == "reject":
            self.remember_decision([rule.id])
        self._after_decision(rule.id)

    def _after_decision(self, rule_id: str) -> None:
        """Stay at the same place in the list: the next rule when this one left the filter."""
        options = self.query_one("#rules-list", OptionList)
        position = options.highlighted or 0
        self.shown = None
        self.refresh_rules(select=rule_id)
        if not any(r.id == rule_id for r in self.visible_rules()) and options.option_count:
            options.highlighted = min(position, options.option_count - 1)

    def action_skip(self) -> None:
        options = self.query_one("#rules-list", OptionList)
        if options.option_count:
            options.highlighted = ((options.highlighted or 0) + 1) % options.option_count

    def action_edit(self) -> None:
        rule = self.shown
        if rule is None:
            return
        if not rule.needs_review:
            self.notify(f"{rule.id} is {rule.effective_status}; ctrl+u sends it back to pending first.",
                        severity="warning")
            return
        start = self.edited_text if self.edited_text is not None else rule.text
        self.app.push_screen(RuleEditForm(rule.id, start), lambda text: self._edited(rule, text))

    def _edited(self, rule: Rule, text: str | None) -> None:
        if text is None or self.shown is None or self.shown.id != rule.id:
            return
        if text.strip() == rule.text:
            self.notify("The text is unchanged; press ctrl+y to approve it as it is.")
            self._show(rule)
            return
        if not text.strip():
            self.notify("A rule needs some text.", severity="error")
            return
        self.edited_text = text.strip()
        self.paint_rule(rule, edited_text=self.edited_text)
        self.notify("Check your edit below, then press ctrl+y to approve it.")

    def action_approve_all(self) -> None:
        if self._refused():
            return
        pending = self.store.pending()
        hidden = [r for r in pending if suspicious_characters(r.text)]
        waiting = [r for r in pending if r not in hidden][:BULK_LIMIT]
        if not waiting:
            self.notify("No rules are waiting for review." if not hidden else
                        "Every waiting rule hides characters: approve each one on its own (ctrl+y).")
            return
        more = len(pending) - len(hidden) - len(waiting)
        question = bulk_question(waiting, hidden, more, BULK_LIMIT)
        self.app.push_screen(
            ConfirmScreen(f"Approve {len(waiting)} rule{'s' * (len(waiting) != 1)}", question,
                          yes="Approve all listed"),
            on_yes(lambda: self.with_key(lambda: self._approve_listed(waiting))),
        )

    def _approve_listed(self, listed: list[Rule]) -> None:
        try:
            done = self.store.approve_many([(r.id, r.text) for r in listed],
                                           now=self._timestamp(), approver=self.actor)
        except (TextChangedError, ChangedOnDiskError):
            self._changed_underneath(
                listed[0].id,
                "A listed rule changed after the list was shown; nothing was approved. "
                "Review the current texts.",
            )
            return
        except RuleError as exc:
            self.notify(str(exc), severity=severity_of(exc))
            return
        self.notify(f"Approved {len(done)} rule{'s' * (len(done) != 1)}.")
        self.remember_decision([r.id for r in done])
        self.shown = None
        self.refresh_rules()

    # --- navigation ------------------------------------------------------------------------

    def action_open_session(self) -> None:
        rule = self.shown
        if rule is None:
            return
        if not rule.session_id:
            self.notify("No session is known for this rule.", severity="warning")
            return
        self.post_message(self.OpenSession(rule.session_id))

    def action_citations(self) -> None:
        """What the shown rule cites (``tui.screens.citations``)."""
        from tui.screens.citations import CitationsScreen

        if self.shown is None or self.context is None:
            return
        self.app.push_screen(CitationsScreen(self.context, f"rule:{self.shown.id}", self.store.memory_dir))

    def action_next_filter(self) -> None:
        tabs = self.query_one("#rules-filter", Tabs)
        position = FILTERS.index(self.status_filter)
        tabs.active = f"filter-{FILTERS[(position + 1) % len(FILTERS)]}"

    def action_reload(self) -> None:
        self.store.reload()
        self.shown = None
        self.refresh_rules()

    def action_leave(self) -> None:
        if self.edited_text is not None and self.shown is not None:
            self._show(self.shown)  # escape first drops a pending edit
            self.notify("Edit dropped; nothing was approved.")
            return
        if self.app.screen_stack and self.app.screen_stack[0] is not self:
            self.dismiss()
        else:
            self.post_message(self.Leave())

    # --- who may approve, and the folder's trust (was rules_trust.py) ----------------------------

    def _refused(self) -> bool:
        """Tell the person, and True, when approval may not happen from here."""
        refusal = self.approval_gate()
        if refusal:
            self.notify(refusal, title="Nothing was approved", severity="error", timeout=12)
        return bool(refusal)

    def with_key(self, then: Callable[[], object]) -> None:
        """Run ``then`` once the approval key is unlocked: at once if it is, else after the
        person typed the passphrase (set up the first time, never from a detached terminal)."""
        if unlocked_key() is not None:
            then()
            return
        first_time = not key_is_set_up()
        if first_time:
            origin = approval_origin()
            reason = detached_reason(origin)
            if reason is not None:
                self.notify("Set up your approval passphrase from a terminal of your own login session, "
                            f"not {reason.split(',')[0]}.", title="Nothing was approved", severity="error",
                            timeout=12)
                return

        def typed(passphrase: str | None) -> None:
            if passphrase is None:
                self.notify("Nothing was approved.")
                return
            try:
                if first_time:
                    set_up(passphrase, how=approval_origin())
                else:
                    unlock(passphrase)
            except ApprovalKeyError as exc:
                self.notify(str(exc), title="Nothing was approved", severity=severity_of(exc), timeout=12)
                return
            then()

        self.app.push_screen(PassphraseScreen(set_up=first_time), typed)

    def folder_trust(self) -> FolderTrust | None:
        """The trust of the folder the rules come from (None: not known, e.g. a bare screen)."""
        folder = self.folder
        if folder is None and self.context is not None:
            folder = resolve_memory_folder(self.context.memory_dir)
        if folder is None or folder.path.resolve() != self.store.memory_dir.resolve():
            return None
        return folder_trust(folder)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "allow_folder":  # only offered for a project folder not allowed as it is
            trust = self.folder_trust()
            return trust is not None and trust.folder.is_project and trust.state != ALLOWED
        return True

    def action_allow_folder(self) -> None:
        trust = self.folder_trust()
        if trust is None or not trust.folder.is_project or trust.state == ALLOWED or self._refused():
            return
        path = trust.folder.path
        self.app.push_screen(
            ConfirmScreen("Allow this project's memory folder?", allow_folder_question(path),
                          yes="Allow it"),
            on_yes(lambda: self.with_key(lambda: self._allow(path))),
        )

    def _allow(self, path: Path) -> None:
        try:
            allow_folder(path, now=self._timestamp())
        except (FolderNotAllowable, OSError) as exc:
            self.notify(str(exc), title="Not allowed", severity=severity_of(exc), timeout=12)
            return
        self.notify(f"Allowed {path}: its memory and approved rules now reach your agents.")
        self.refresh_rules()
        self.refresh_bindings()

    # --- undo and outside changes (was rules_upkeep.py) -------------------------------------------

    def start_upkeep(self) -> None:
        """Called on mount: no decision yet, and the file as it is now."""
        self.decided: list[list[str]] = []  # the rule ids of each decision made here, last one last
        self._signature = file_signature(self.store.path)
        self.set_interval(POLL_SECONDS, self.poll, name="rules-poll")

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
            self.notify(f"{shown.id} was changed elsewhere; your edit was dropped.",
                        severity="warning")

    def repaint_detail(self) -> None:
        """The shown rule again (fresh relative times), at the same scroll position."""
        if self.shown is None:
            return
        detail = self.query_one("#rule-detail", RuleDetail)
        y = detail.scroll_y
        self.paint_rule(self.shown, edited_text=self.edited_text)
        detail.scroll_to(y=y, animate=False, immediate=True)

    def paint_rule(self, rule: Rule, *, edited_text: str | None = None) -> None:
        """The detail pane for ``rule``, with why its approval does not count where it does
        not: every paint (the first, an edit, the poll's fresh times) must carry that note."""
        detail = self.query_one("#rule-detail", RuleDetail)
        detail.show_rule(rule, self._timestamp(), edited_text=edited_text, note=self.store.verification_note(rule),
                         made=self.store.origin_note(rule))

    # --- undo -------------------------------------------------------------------------------

    def action_back_to_pending(self) -> None:
        """The highlighted rule back to pending, whoever decided it (u undoes your last one)."""
        self._decide("undo")

    def action_undo_last(self) -> None:
        """Undo the last decision made on this screen (a bulk approval as a whole): its rules
        go back to pending, whatever is highlighted."""
        if not self.decided:
            self.notify("No decision to undo here yet. ctrl+u sends the highlighted rule back to pending.",
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
            self.notify(str(exc), severity=severity_of(exc))
            return
        if not undone:
            self.notify(f"{', '.join(ids)}: already pending, nothing to undo.",
                        severity="warning")
            return
        what = f"{undone[0]} is" if len(undone) == 1 else f"{len(undone)} rules are"
        self.notify(f"Undone: {what} pending again.")
        self.shown = None
        self.refresh_rules(select=undone[0])

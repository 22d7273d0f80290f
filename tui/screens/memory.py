"""The memory screen: which folder is open (and why), and a tab per tier.

Fact (fact.yml in an editor), Episodic (table, strength, decayed view, links) and Scratchpad
(editor, promote, finish task). The tabs do their own work on the ``MemoryStore`` handed down;
this screen owns the folder: cycling through the configured, the global and the project folder,
reloading, and what happens when a write is refused because a file changed on disk (a
notification and a reload offer). 1, 2, 3 switch tabs (from any list; the editors keep digits).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static, TabbedContent, TabPane

from indexer.config import PROJECT, MemoryFolder, global_memory_dir, project_memory_dir
from indexer.memory import DEFAULT_DECAY_THRESHOLD, MemoryStore
from indexer.memory.trust import CHANGED, NOT_ALLOWED, folder_trust
from tui.app_context import AppContext
from tui.screens.confirm import ConfirmScreen, on_yes
from tui.widgets.memory_episodic_pane import MemoryEpisodicPane
from tui.widgets.memory_fact_pane import MemoryFactPane
from tui.widgets.memory_scratchpad_pane import MemoryScratchpadPane
from tui.widgets.memory_tier_pane import MemoryTierPane
from tui.widgets.key_footer import KeyFooter
from tui.widgets.status_bar import StatusBar

GLOBAL_REASON = "global folder, shared by all projects"
PROJECT_REASON = "this project's memory/ folder"
MAX_PROBLEMS_SHOWN = 3
MEMORY_TABS = ("fact", "episodic", "scratchpad")  # a MemoryHit's kind is its tab's id
TAB_FOCUS = {"fact": "#fact-keys", "episodic": "#episodic-table", "scratchpad": "#scratch-items"}
TABS = Binding.Group("Tabs")


@dataclass(frozen=True)
class FolderChoice:
    """A memory folder ctrl+o can open: which one (``kind``: configured, global, project) and
    why it is that folder (``reason``, shown next to the open folder's name)."""

    folder: Path
    reason: str
    kind: str = "configured"


def folder_choices(configured: FolderChoice, global_dir: Path, project_dir: Path) -> list[FolderChoice]:
    """The folder the app was given (``--memory-dir``, the environment, or the default rule),
    then the global folder, then the project's: each folder once, with its first reason."""
    choices: list[FolderChoice] = []
    for choice in (configured, FolderChoice(global_dir, GLOBAL_REASON, "global"),
                   FolderChoice(project_dir, PROJECT_REASON, "project")):
        if not any(_same(choice.folder, c.folder) for c in choices):
            choices.append(choice)
    return choices


def home_relative(path: Path) -> str:
    """``~/…`` for paths under the home folder, so the header stays short."""
    try:
        return "~/" + str(Path(path).relative_to(Path.home()))
    except ValueError:
        return str(path)


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class MemoryScreen(Screen[None]):
    """The three memory tiers of one folder."""
    HELP_TITLE = "Memory"  # its keys' section in the help screen
    HELP_NOTE = ("A tab opens on its list. To edit fact.yml or scratchpad.md: tab from the list to the "
                 "editor (shift+tab back), or enter on a fact. Typing in an editor changes nothing on "
                 "disk until ctrl+s. Keys that write or open a form have ctrl: letters typed on a list "
                 "only show, sort or mark.")

    CSS_PATH = "../memory_rules.tcss"
    BINDINGS = [
        Binding("ctrl+o", "switch_folder", "Next folder", id="memory.switch_folder"),
        Binding("ctrl+l", "reload", "Reload", id="memory.reload"),
        Binding("ctrl+g", "citations", "Cited sources", id="memory.citations", show=False),
        Binding("1", "show_tab('fact')", "Fact tab", id="memory.tab.fact", group=TABS),
        Binding("2", "show_tab('episodic')", "Episodic tab", id="memory.tab.episodic", group=TABS),
        Binding("3", "show_tab('scratchpad')", "Scratchpad tab", id="memory.tab.scratchpad", group=TABS),
        # Priority: the table would scroll sideways with them.
        Binding("ctrl+pagedown", "next_tab(1)", "Next tab", id="memory.tab.next", show=False, priority=True),
        Binding("ctrl+pageup", "next_tab(-1)", "Previous tab", id="memory.tab.previous", show=False,
                priority=True),
    ]

    @dataclass
    class FolderChanged(Message):
        """The user opened another memory folder (ctrl+o)."""

        folder: Path

    def __init__(
        self,
        store: MemoryStore | None = None,
        *,
        now: Callable[[], datetime] = utc_now,
        global_dir: Path | None = None,
        project_dir: Path | None = None,
        folder_label: Callable[[Path], str] = home_relative,
        decay_threshold: float = DEFAULT_DECAY_THRESHOLD,
        initial_tab: str = "fact",
        context: AppContext | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.store = store if store is not None else MemoryStore.open()
        self.now = now
        self.global_dir = Path(global_dir) if global_dir else global_memory_dir()
        self.project_dir = Path(project_dir) if project_dir else project_memory_dir(Path.cwd())
        self.folder_label = folder_label
        self.decay_threshold = decay_threshold
        self.initial_tab = initial_tab
        self.context = context  # the app's: its status line, and a memory folder opened elsewhere
        self.configured = FolderChoice(self.store.folder, self.store.reason)  # the first of ctrl+o's

    def compose(self) -> ComposeResult:
        yield Static("", id="memory-folder")
        yield Static("", id="memory-problems")
        with TabbedContent(initial=self.initial_tab, id="memory-tabs"):
            with TabPane("Fact", id="fact"):
                yield MemoryFactPane(self.store, self.now, id="memory-fact")
            with TabPane("Episodic", id="episodic"):
                yield MemoryEpisodicPane(self.store, self.now, threshold=self.decay_threshold,
                                         id="memory-episodic")
            with TabPane("Scratchpad", id="scratchpad"):
                yield MemoryScratchpadPane(self.store, self.now, id="memory-scratchpad")
        yield StatusBar(self.context)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show_folder()
        if self.context is not None:
            self.context.watch(self, "memory_generation", self._folder_opened_elsewhere, init=False)
            self.check_citations()

    @work(thread=True, exclusive=True, group="memory-citations", exit_on_error=False)
    def check_citations(self) -> None:
        """Check what the folder's memories cite, so an entry whose source changed says so in
        its row (and decays as the formula allows) without its citations being opened."""
        from tui.screens.citations import recheck_citations

        assert self.context is not None
        if recheck_citations(self.context, self.store.folder):
            self.app.call_from_thread(self.query_one(MemoryEpisodicPane).refresh_view)

    def _folder_opened_elsewhere(self, _generation: int) -> None:
        """The app opened another memory folder (the demo's): show it."""
        assert self.context is not None
        store = self.context.memory_store()
        if not _same(store.folder, self.store.folder):
            self.store = store
            self.configured = FolderChoice(store.folder, store.reason)
            self.reload_all()

    @property
    def panes(self) -> list[MemoryTierPane]:
        return list(self.query(MemoryTierPane))

    # --- the header ------------------------------------------------------------------------

    def _choices(self) -> list[FolderChoice]:
        return folder_choices(self.configured, self.global_dir, self.project_dir)

    def _next_folder(self) -> FolderChoice:
        """The folder after the open one in ``_choices`` (the first, when the open one is none
        of them)."""
        choices = self._choices()
        here = next((i for i, c in enumerate(choices) if _same(c.folder, self.store.folder)), -1)
        return choices[(here + 1) % len(choices)]

    def _trust_note(self) -> str | None:
        """For the project's own ``memory/``: whether agents are given it (``indexer.memory.trust``).
        Editing it here is fine; what reaches agents is the person's separate decision."""
        if not _same(self.store.folder, self.project_dir) or _same(self.store.folder, self.global_dir):
            return None
        trust = folder_trust(MemoryFolder(self.store.folder, PROJECT_REASON, PROJECT))
        if trust.state == NOT_ALLOWED:
            return "⚠ not allowed for agents (Rules screen: ctrl+t)"
        if trust.state == CHANGED:
            return "⚠ changed since allowed: rules left out"
        return None

    def show_folder(self) -> None:
        choices = self._choices()
        following = self._next_folder()
        header = Text(no_wrap=True, overflow="ellipsis")
        header.append("Memory ", style="bold")
        header.append(self.folder_label(self.store.folder), style="bold")
        if self.store.reason:
            header.append(f"  ({self.store.reason})", style="italic")
        trust_note = self._trust_note()
        if trust_note:
            header.append(f"  {trust_note}", style="bold yellow")
        if len(choices) > 1:
            header.append(f"   ctrl+o: the {following.kind} folder, {self.folder_label(following.folder)}",
                          style="dim")
        self.query_one("#memory-folder", Static).update(header)
        problems = self.store.problems()
        box = self.query_one("#memory-problems", Static)
        box.display = bool(problems)
        if problems:
            noun = "problem" if len(problems) == 1 else "problems"
            text = Text(f"⚠ {len(problems)} {noun} in the memory files "
                        f"(bad lines are kept as they are):", style="bold")
            for p in problems[:MAX_PROBLEMS_SHOWN]:
                text.append(f"\n  {p.path.name} line {p.line}: ")
                text.append(p.message)
            if len(problems) > MAX_PROBLEMS_SHOWN:
                text.append(f"\n  … and {len(problems) - MAX_PROBLEMS_SHOWN} more")
            box.update(text)

    # --- tabs ------------------------------------------------------------------------------

    def show_memory(self, kind: str, ref: str) -> None:
        """Open the tab of one memory and select it: ``kind`` and ``ref`` as in ``MemoryHit``
        (``fact``/key, ``episodic``/id, ``scratchpad``/``scratchpad:<line>``)."""
        if kind not in MEMORY_TABS:
            return

        def open_tab() -> None:  # after a refresh: a screen mounted just now picks its initial tab first
            self.query_one("#memory-tabs", TabbedContent).active = kind
            self.call_after_refresh(self._select_memory, kind, ref)

        self.call_after_refresh(open_tab)

    def _select_memory(self, kind: str, ref: str, *, reloaded: bool = False) -> None:
        if kind == "episodic":
            found = self.query_one(MemoryEpisodicPane).select_entry(ref)
        elif kind == "fact":
            found = self.query_one(MemoryFactPane).select_key(ref)
        else:
            line = ref.removeprefix("scratchpad:")
            found = line.isdigit() and self.query_one(MemoryScratchpadPane).select_line(int(line))
        if found:
            return
        if not reloaded and not self._unsaved():
            self.reload_all()  # the search read the files afresh; this screen may be older
            self._select_memory(kind, ref, reloaded=True)
            return
        self.notify(f"{ref} is not in {self.folder_label(self.store.folder)}", severity="warning")


    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """A tab opens on its list, never in an editor: a key typed next edits no file."""
        target = TAB_FOCUS.get(event.pane.id or "")
        if target:
            self.query_one(target).focus()

    def action_citations(self) -> None:
        """What the selected entry or fact cites (``tui.screens.citations``)."""
        from tui.screens.citations import CitationsScreen, selected_fact_key

        tab = self.query_one("#memory-tabs", TabbedContent).active
        if tab == "episodic":
            ref = self.query_one(MemoryEpisodicPane).selected_id()
        elif tab == "fact":
            key = selected_fact_key(self.query_one(MemoryFactPane))
            ref = f"fact:{key}" if key else None
        else:
            ref = None
        if ref is None or self.context is None:
            self.notify("Select an episodic entry or a fact to see what it cites.", severity="warning")
            return
        self.app.push_screen(CitationsScreen(self.context, ref, self.store.folder))

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#memory-tabs", TabbedContent).active = tab

    def action_next_tab(self, step: int) -> None:
        tabs = self.query_one("#memory-tabs", TabbedContent)
        position = MEMORY_TABS.index(tabs.active) if tabs.active in MEMORY_TABS else 0
        tabs.active = MEMORY_TABS[(position + step) % len(MEMORY_TABS)]

    # --- reload, switch, refusals ----------------------------------------------------------

    def _unsaved(self) -> bool:
        return any(p.has_unsaved_edits() for p in self.panes)

    def _after_confirming_discard(self, then: Callable[[], None]) -> None:
        if not self._unsaved():
            then()
            return
        self.app.push_screen(
            ConfirmScreen("Discard unsaved edits?",
                          "An editor has changes that are not saved. Continue and lose them?",
                          yes="Discard"),
            on_yes(then),
        )

    def reload_all(self) -> None:
        self.store.reload()
        for pane in self.panes:
            pane.store = self.store
            pane.load()
        self.show_folder()

    def action_reload(self) -> None:
        self._after_confirming_discard(self.reload_all)

    def action_switch_folder(self) -> None:
        self._after_confirming_discard(self._switch)

    def _switch(self) -> None:
        choice = self._next_folder()
        if _same(choice.folder, self.store.folder):
            self.notify("There is no other memory folder to open.")
            return
        self.store = MemoryStore(choice.folder, choice.reason)
        self.reload_all()
        self.notify(f"Opened {self.folder_label(choice.folder)} ({choice.reason})")
        self.post_message(self.FolderChanged(choice.folder))

    def on_memory_tier_pane_changed_on_disk(self, event: MemoryTierPane.ChangedOnDisk) -> None:
        event.stop()
        name = Path(event.error.path).name
        self.notify(
            f"{name} was changed by another program since it was loaded. Nothing was saved.",
            title="Changed on disk",
            severity="error",
            timeout=10,
        )
        self.app.push_screen(
            ConfirmScreen(
                "Reload from disk?",
                f"{name} was changed by another program. Reload it now? What is in the "
                "editors is replaced by what is on disk. Choose 'Keep my edit' to copy your "
                "text first, then reload with ctrl+l.",
                yes="Reload",
                no="Keep my edit",
            ),
            on_yes(self.reload_all),
        )

    def on_memory_tier_pane_written(self, event: MemoryTierPane.Written) -> None:
        event.stop()
        for pane in self.panes:
            if pane is not event.pane:
                pane.refresh_view()
        self.show_folder()


def _same(a: Path, b: Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return Path(a) == Path(b)

"""The sessions screen: a lazily filled tree of every session, a filter box, session details."""

from __future__ import annotations

import time
from dataclasses import dataclass
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from rich.text import Text
from textual.widgets import Input, Tree
from textual.widgets.tree import TreeNode
from textual.worker import get_current_worker

from indexer.agents.launch_argv import resume_line
from indexer.activity import ActivityStrip
from tui.app_context import AppContext
from tui.display.log_text import log_text
from tui.requests import CopySession, OpenTranscript
from tui.widgets.activity_strip import ActivityStripView
from tui.widgets.session_details import SessionDetails
from tui.widgets.session_tree import ChildSpec, NodeData, SessionTree, filtered_tree
from tui.widgets.key_footer import KeyFooter
from tui.widgets.status_bar import StatusBar
from tui.worker_errors import ReportsWorkerErrors

NARROW_WIDTH = 100  # below this the side pane moves under the list
FILTER_DEBOUNCE_SECONDS = 0.2
ACTIVITY_LIVE_SECONDS = 30.0  # live updates read the activity strip again at most this often


class SessionsScreen(ReportsWorkerErrors, Screen):
    HELP_TITLE = "Sessions"  # its keys' section in the help screen
    HELP_NOTE = ("Typing on the tree filters it (the letters go to the filter box). Keys that run the "
                 "agent or copy have ctrl; a fork asks first (enter forks, esc cancels).")
    BINDINGS = [
        Binding("ctrl+l", "focus_filter", "Filter", id="sessions.filter"),
        Binding("down", "focus_tree", "Tree", id="sessions.focus_tree", show=False),
    ]

    @dataclass
    class AgentsLoaded(Message):
        agents: list[tuple[str, int]]

    @dataclass
    class FilterReady(Message):
        text: str
        specs: list[ChildSpec]

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.context = context
        self.filter_text = ""
        self._keep_cursor = False  # the next filtered tree comes from a live update
        self._activity_loaded_at = 0.0

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Filter sessions by title, id or project", id="session-filter")
        yield ActivityStripView(id="activity-strip")
        with Horizontal(id="sessions-body"):
            yield SessionTree(self.context, id="session-tree")
            yield SessionDetails(id="session-details")
        yield StatusBar(self.context)
        yield KeyFooter()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW_WIDTH, "-narrow")

    def on_mount(self) -> None:
        self.context.watch(self, "index_generation", self._index_changed, init=False)
        self.context.watch(self, "live_generation", self._live_update, init=False)
        self.context.watch(self, "clock_tick", self._relabel, init=False)  # with the status line's "updated"
        self.query_one(SessionDetails).show_hint("Expand an agent, a project and a day to find a session.")
        self.reload()
        self.query_one(SessionTree).focus()

    def reload(self) -> None:
        self.load_activity()
        if self.filter_text:
            self.run_filter(self.filter_text, 0.0)
        else:
            self.load_agents()

    def _index_changed(self, _generation: int) -> None:
        self.reload()

    def _live_update(self, _generation: int) -> None:
        """New lines in a log: counts, labels and new sessions, with the cursor left alone."""
        if time.monotonic() - self._activity_loaded_at >= ACTIVITY_LIVE_SECONDS:
            self.load_activity()  # a day's counts move slowly: not on every line an agent writes
        if self.filter_text:
            self._keep_cursor = True
            self.run_filter(self.filter_text, 0.0)
        else:
            self.query_one(SessionTree).refresh_loaded()

    def _relabel(self, _tick: int = 0) -> None:
        """On the app's clock tick: an "active" mark ends when its session goes quiet, with no
        new line to tell of it, and "3min ago" becomes "4min ago", as the status line's does."""
        if self.is_current and not self.filter_text:
            self.query_one(SessionTree).refresh_loaded()

    @on(SessionTree.Refreshed)
    def _tree_refreshed(self) -> None:
        self._show_details(self.query_one(SessionTree).cursor_node)

    @dataclass
    class ActivityLoaded(Message):
        strip: ActivityStrip

    @work(thread=True, exclusive=True, group="activity", exit_on_error=False)
    def load_activity(self) -> None:
        self._activity_loaded_at = time.monotonic()
        self.post_message(self.ActivityLoaded(self.context.index.activity(self.context.now())))

    def on_sessions_screen_activity_loaded(self, event: ActivityLoaded) -> None:
        self.query_one(ActivityStripView).show(event.strip)

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def load_agents(self) -> None:
        self.post_message(self.AgentsLoaded(self.context.index.agents()))

    def on_sessions_screen_agents_loaded(self, event: AgentsLoaded) -> None:
        if not self.filter_text:
            tree = self.query_one(SessionTree)
            tree.show_agents(event.agents)
            self._show_details(tree.cursor_node)

    # -- filtering -------------------------------------------------------------------------------
    @on(Input.Changed, "#session-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value.strip()
        if self.filter_text:
            self.run_filter(self.filter_text, FILTER_DEBOUNCE_SECONDS)
        else:
            self.workers.cancel_group(self, "sessions")
            self.load_agents()

    @on(Input.Submitted, "#session-filter")
    def _filter_submitted(self) -> None:
        self.query_one(SessionTree).focus()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def run_filter(self, text: str, delay: float) -> None:
        worker = get_current_worker()
        if delay:
            time.sleep(delay)
        if worker.is_cancelled:
            return
        specs = filtered_tree(self.context.index, text, self.context.now())
        if not worker.is_cancelled:
            self.post_message(self.FilterReady(text, specs))

    def on_sessions_screen_filter_ready(self, event: FilterReady) -> None:
        if event.text == self.filter_text:
            tree = self.query_one(SessionTree)
            keep, self._keep_cursor = self._keep_cursor, False
            tree.show_filtered(event.specs, keep_cursor=keep)
            if event.specs:
                self._show_details(tree.cursor_node)  # the tree was refilled: no stale text
            else:
                self.query_one(SessionDetails).show_hint(
                    Text.assemble("No session title, id or project contains “", log_text(event.text), "”."))

    # -- the cursor ---------------------------------------------------------------------------------
    @on(Tree.NodeHighlighted)
    def _node_highlighted(self, event: Tree.NodeHighlighted[NodeData]) -> None:
        self._show_details(event.node)

    def _show_details(self, node: TreeNode[NodeData] | None) -> None:
        data = node.data if node is not None else None
        details = self.query_one(SessionDetails)
        if data is None or data.session is None:
            details.show_hint("enter or space expands; a session's transcript opens with enter.")
            return
        session = data.session
        details.show(session, resume_line(session, self.context.index.parent(session)), self.context.now())

    @on(SessionTree.SessionChosen)
    def _session_chosen(self, event: SessionTree.SessionChosen) -> None:
        self.post_message(OpenTranscript(event.session))

    @on(SessionTree.CopyRequested)
    def _copy(self, event: SessionTree.CopyRequested) -> None:
        self.post_message(CopySession(event.session, event.what))

    # -- where typing goes (the app's type-ahead) -----------------------------------------------
    def type_ahead_box(self, focused: Widget | None) -> Input | None:
        """Typing on the tree filters it: the letters go on in the filter box."""
        if isinstance(focused, SessionTree):
            box = self.query_one("#session-filter", Input)
            box.cursor_position = len(box.value)
            return box
        return None

    def focus_home(self) -> None:
        """F3: the cursor on the tree."""
        self.query_one(SessionTree).focus()

    def at_home(self) -> bool:
        return self.query_one(SessionTree).has_focus

    def action_focus_filter(self) -> None:
        self.query_one("#session-filter", Input).focus()

    def action_focus_tree(self) -> None:
        self.query_one(SessionTree).focus()

"""The search screen (the default): a query box, live paged results, the selected hit's context.

The scope toggle (ctrl+f) adds the memory folder to a search (sessions → sessions + memory →
memory only): the memory store answers the same query in the same worker, and its hits are
listed first (on the first page), then the session hits.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import NamedTuple

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, Static
from textual.worker import get_current_worker

from indexer import Hit, Message as LogMessage, SearchResult
from indexer.search import filters
from indexer.search.unified import (
    PAGE_SIZE,
    SCOPES,
    MemoryResult,
    SearchRequest,
    UnifiedResult,
    search_everything,
    with_closest,
)
from indexer.sources import AGENT_NAMES
from tui.app_context import AppContext
from tui.clipboard import copy_text
from tui.display.log_text import find_of, visible
from tui.display.counts import page_label
from tui.requests import CopySession, OpenDemo, OpenMemory, OpenTranscript
from tui.widgets.context_pane import ContextPane
from tui.widgets.result_list import ResultList
from tui.widgets.key_footer import KeyFooter
from tui.widgets.status_bar import StatusBar
from tui.worker_errors import ReportsWorkerErrors

__all__ = ["PAGE_SIZE", "SearchRequest", "SearchScreen"]

NARROW_WIDTH = 100  # below this the side pane moves under the list
DEBOUNCE_SECONDS = 0.035  # bursts of fast typing search once; results well within 200 ms
AGENT_CYCLE = (None, *AGENT_NAMES)
MAX_CONTEXT = 20
SCOPE_LABELS = {"sessions": "off", "sessions+memory": "on", "memory": "only"}


def info_line(request: SearchRequest, result: SearchResult | None, error: str | None,
              memory: MemoryResult | None, *, narrow: bool) -> Text:
    """The line under the search box: the filters, then the memory and session counts.

    Pure, so every state of the line can be built and checked without a screen."""
    info = Text(no_wrap=True, overflow="ellipsis")
    info.append_text(filter_toggles(request, narrow=narrow))
    if memory is not None and request.has_query:
        info.append_text(memory_count(request, memory))
        if request.includes_sessions:
            info.append(" · ")
    if error:
        info.append(error, style="bold red")
    elif result is not None and request.query_text and request.includes_sessions:
        info.append_text(session_count(request, result))
    return info


def filter_toggles(request: SearchRequest, *, narrow: bool) -> Text:
    """Each toggle's label dim and its value bold while it narrows the search."""
    toggles = Text()
    for toggle in toggle_states(request, narrow=narrow):
        toggles.append(f"{toggle.label} ", style="dim")
        toggles.append(toggle.value, style="bold" if toggle.narrows else "")
        toggles.append("  " if narrow else "   ")
    return toggles


class ToggleState(NamedTuple):
    label: str
    value: str
    narrows: bool  # shown bold: the toggle is off its default and narrows the search


def toggle_states(request: SearchRequest, *, narrow: bool) -> list[ToggleState]:
    """The keys' toggles as the request sets them, in the order their keys are listed."""
    scope = request.project_scope
    return [
        ToggleState("agent", request.agent or "all", request.agent is not None),
        ToggleState("project", scope.name if scope else "all", scope is not None),
        ToggleState("1/session" if narrow else "one per session", "on" if request.one_per_session else "off",
                    request.one_per_session),
        ToggleState("memory", SCOPE_LABELS[request.scope], request.includes_memory),
    ]


def memory_count(request: SearchRequest, memory: MemoryResult) -> Text:
    """Beside the sessions, how many memory hits are listed of how many; alone, their page."""
    if memory.error:
        return Text(memory.error, style="bold red")
    if request.includes_sessions:
        shown = f"{len(memory.hits)} of " if len(memory.hits) < memory.total else ""
        return Text(f"{shown}{memory.total:,} in memory")
    if memory.total:
        return Text(page_label(memory.total, request.page, PAGE_SIZE, "memory hit"))
    return Text("no memory hits")


def session_count(request: SearchRequest, result: SearchResult) -> Text:
    """The session hits' page, then what the search changed or warns of, in yellow."""
    count = Text()
    if result.total:
        noun = "session" if result.by_session else "hit"
        count.append(page_label(result.total, request.page, PAGE_SIZE, noun, more=result.capped))
    else:
        count.append("no hits")
    if result.showing_results_for:
        count.append(f" · showing results for {result.showing_results_for}", style="yellow")
    for warning in (*result.warnings, *result.notes):
        count.append(f" · {warning}", style="yellow")
    return count


class SearchScreen(ReportsWorkerErrors, Screen):
    HELP_TITLE = "Search box"  # its keys' section in the help screen
    HELP_NOTE = ("Whatever you type on the results or the preview goes on in the search box. Keys that "
                 "run the agent or copy have ctrl; a fork asks first (enter forks, esc cancels).")
    BINDINGS = [
        Binding("ctrl+t", "cycle_agent", "Agent", id="search.agent"),
        Binding("ctrl+o", "toggle_project", "Project", id="search.project"),
        Binding("ctrl+g", "toggle_one_per_session", "1/session", id="search.one_per_session"),
        Binding("ctrl+f", "cycle_scope", "Scope", id="search.scope"),
        Binding("down", "focus_results", "Results", id="search.focus_results", show=False),
        Binding("escape", "focus_query", "Search box", id="search.focus_query", show=False),
    ]

    @dataclass
    class ResultsReady(Message):
        result: UnifiedResult
        closest: bool = False  # the same request's answer with its closest matches added

    @dataclass
    class ContextReady(Message):
        hit: Hit
        before: tuple[LogMessage, ...]
        after: tuple[LogMessage, ...]
        size: int

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.context = context
        self.request = SearchRequest()
        self.context_size = 2
        self.result: SearchResult | None = None
        self.error: str | None = None
        self.memory: MemoryResult | None = None
        self._keep_cursor = False  # the next results come from a live update: keep the cursor

    def compose(self) -> ComposeResult:
        with Vertical(id="search-top"):
            yield Input(placeholder='Search your agents\' history — words, "phrases", OR, -word, '
                                    + filters.keys_listed(filters.PLACEHOLDER),
                        id="query", select_on_focus=False)
            yield Static(id="search-info")
        # The "no agent logs" panel is mounted when needed (_show_no_logs): a start-up with
        # logs should not pay for styling a button it never shows.
        with Horizontal(id="search-body"):
            yield ResultList(id="results")
            yield ContextPane(id="context")
        yield StatusBar(self.context)
        yield KeyFooter()

    def on_resize(self, event: events.Resize) -> None:
        narrow = event.size.width < NARROW_WIDTH
        if narrow != self.has_class("-narrow"):
            self.set_class(narrow, "-narrow")
            self._paint_info()

    def on_mount(self) -> None:
        self.context.watch(self, "index_generation", self._index_changed, init=False)
        self.context.watch(self, "live_generation", self._live_update, init=False)
        self.context.watch(self, "memory_generation", self._memory_changed, init=False)
        self.context.watch(self, "no_logs", self._show_no_logs)
        self.context.watch(self, "stats", self._stats_changed, init=False)
        self._paint_info()
        self.query_one(ContextPane).clear("Type to search. Results appear as you type.")
        self.query_one("#query", Input).focus()

    # -- issuing searches ---------------------------------------------------------------
    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        self.search(replace(self.request, text=event.value, page=0))

    @on(Input.Submitted, "#query")
    def _query_submitted(self) -> None:
        results = self.query_one(ResultList)
        if results.current_item is not None:
            results.focus()

    def search(self, request: SearchRequest, *, immediate: bool = False) -> None:
        self.request = request
        self._paint_info()
        if not request.has_query:
            self.workers.cancel_group(self, "search")
            self._show(None, None, None)
            return
        self.run_search(request, 0.0 if immediate else DEBOUNCE_SECONDS)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def run_search(self, request: SearchRequest, delay: float) -> None:
        """Debounce by cancellation: a newer keystroke cancels this worker while it sleeps."""
        worker = get_current_worker()
        if delay:
            time.sleep(delay)
        if worker.is_cancelled:
            return
        context = self.context
        # The exact answer first, as fast as before; then, when it fills less than a page, the
        # closest matches after it (indexer.search.closest).
        result = search_everything(context.index, context.memory_store, request, context.now(),
                                   should_stop=lambda: worker.is_cancelled, closest=False)
        if result is None or worker.is_cancelled:
            return
        self.post_message(self.ResultsReady(result))
        more = with_closest(context.index, result, context.now())
        if more is not None and not worker.is_cancelled:
            self.post_message(self.ResultsReady(more, closest=True))

    def on_search_screen_results_ready(self, event: ResultsReady) -> None:
        if event.result.request != self.request:
            return  # a newer search is on its way
        if event.closest:
            self._keep_cursor = True  # the exact rows stay where they were, the cursor too
        self._show(event.result.sessions, event.result.error, event.result.memory)

    def _show(self, result: SearchResult | None, error: str | None, memory: MemoryResult | None) -> None:
        self.result, self.error, self.memory = result, error, memory
        results = self.query_one(ResultList)
        matches = [s.matches for s in result.sessions] if result and result.by_session else ()
        keep, self._keep_cursor = self._keep_cursor, False
        results.show_hits(result.hits if result else [], self.context.now(),
                          memory.hits if memory else (), memory.terms if memory else (), matches, keep_cursor=keep,
                          closest_from=result.closest_from if result else -1)
        if results.current_item is None:
            self.query_one(ContextPane).clear(self._empty_hint())
            if results.has_focus:
                self.query_one("#query", Input).focus()
        self._paint_info()

    def _empty_hint(self) -> str:
        if self.error:
            return ""
        if not self.request.has_query:
            return "Type to search. Results appear as you type."
        if self.request.scope == "memory":
            return "No memory matches. Try fewer words, or search sessions too (ctrl+f)."
        lines = ["No messages match. Try other words, or drop a filter (ctrl+t, ctrl+o)."]
        if self.result is not None:  # what the search tried, and what it could not search
            lines += [f"Tried: {step}" for step in self.result.tried]
            lines += [f"Not searched: {left}" for left in self.result.not_searched]
        return "\n".join(lines)

    # -- the context pane -----------------------------------------------------------------
    @on(ResultList.Highlighted)
    def _hit_highlighted(self, event: ResultList.Highlighted) -> None:
        self.load_context(event.hit, self.context_size)

    @work(thread=True, exclusive=True, group="context", exit_on_error=False)
    def load_context(self, hit: Hit, size: int) -> None:
        before, after = self.context.index.context(hit.message, size, size)
        self.post_message(self.ContextReady(hit, before, after, size))

    def on_search_screen_context_ready(self, event: ContextReady) -> None:
        current = self.query_one(ResultList).current_hit
        if current is None or current.message.id != event.hit.message.id:
            return
        terms = [t.text for t in self.result.query.positive_terms] if self.result else []
        self.query_one(ContextPane).show(event.hit, event.before, event.after, event.size, terms)

    @on(ResultList.MemoryHighlighted)
    def _memory_highlighted(self, event: ResultList.MemoryHighlighted) -> None:
        memory = self.memory
        terms = [t.text for t in memory.terms] if memory else []
        folder = self.context.path_label(memory.folder) if memory and memory.folder else ""
        self.query_one(ContextPane).show_memory(event.hit, terms, folder)

    def action_context(self, delta: int) -> None:
        self.context_size = max(0, min(MAX_CONTEXT, self.context_size + delta))
        if (hit := self.query_one(ResultList).current_hit) is not None:
            self.load_context(hit, self.context_size)

    # -- opening and copying -----------------------------------------------------------------
    @on(ResultList.Chosen)
    def _hit_chosen(self, event: ResultList.Chosen) -> None:
        self.post_message(OpenTranscript(event.hit.session, event.hit.message.id, find=find_of(self.result)))

    @on(ResultList.CopyRequested)
    def _copy(self, event: ResultList.CopyRequested) -> None:
        self.post_message(CopySession(event.hit.session, event.what))

    @on(ResultList.MemoryChosen)
    def _memory_chosen(self, event: ResultList.MemoryChosen) -> None:
        self.post_message(OpenMemory(event.hit.kind, event.hit.id))

    @on(ResultList.MemoryCopyRequested)
    def _copy_memory(self, event: ResultList.MemoryCopyRequested) -> None:
        if event.what != "id":
            self.notify("A memory has no resume command; ctrl+y copies its id.", severity="warning")
            return
        copy_text(self.app, event.hit.id)
        self.notify(visible(event.hit.id), title="Copied the memory id", timeout=4)

    # -- toggles and paging -----------------------------------------------------------------
    def action_cycle_agent(self) -> None:
        position = AGENT_CYCLE.index(self.request.agent) if self.request.agent in AGENT_CYCLE else 0
        agent = AGENT_CYCLE[(position + 1) % len(AGENT_CYCLE)]
        self.search(replace(self.request, agent=agent, page=0), immediate=True)

    def action_toggle_project(self) -> None:
        """Only the sessions of the project Threadback was started in (its folder, or its git
        repository and the folders under it), and back."""
        if self.request.project_scope is not None:
            self.search(replace(self.request, project_scope=None, page=0), immediate=True)
            return
        scope = self.context.project_scope
        if scope is None:
            self.notify("No current project to filter on.", severity="warning")
            return
        where = scope.path + ("/…" if scope.include_subfolders else "")
        self.notify(f"Only sessions in {where}", timeout=3, markup=False)
        self.search(replace(self.request, project_scope=scope, page=0), immediate=True)

    def action_toggle_one_per_session(self) -> None:
        self.search(replace(self.request, one_per_session=not self.request.one_per_session, page=0), immediate=True)

    def action_cycle_scope(self) -> None:
        scope = SCOPES[(SCOPES.index(self.request.scope) + 1) % len(SCOPES)]
        self.search(replace(self.request, scope=scope, page=0), immediate=True)

    def action_page(self, delta: int) -> None:
        page = self.request.page + delta
        if self.request.includes_sessions:
            total = self.result.total if self.result is not None else 0
        else:
            total = self.memory.total if self.memory is not None else 0
        if page < 0 or page * PAGE_SIZE >= total:
            self.app.bell()
            return
        self.search(replace(self.request, page=page), immediate=True)

    def action_focus_results(self) -> None:
        if self.query_one(ResultList).current_item is not None:
            self.query_one(ResultList).focus()

    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    # -- where typing goes (the app's type-ahead) -----------------------------------------------
    def type_ahead_box(self, focused: Widget | None) -> Input | None:
        """Typing on the results or the preview goes on in the search box, at its end."""
        if isinstance(focused, (ResultList, ContextPane)):
            box = self.query_one("#query", Input)
            box.cursor_position = len(box.value)
            return box
        return None

    def focus_home(self) -> None:
        """F2: the cursor in the search box, at the end of the query."""
        box = self.query_one("#query", Input)
        box.focus()
        box.cursor_position = len(box.value)

    def at_home(self) -> bool:
        return self.query_one("#query", Input).has_focus

    # -- showing state ------------------------------------------------------------------------
    def _paint_info(self) -> None:
        narrow = self.has_class("-narrow")  # shorter labels so the hit count stays in view
        info = info_line(self.request, self.result, self.error, self.memory, narrow=narrow)
        self.query_one("#search-info", Static).update(info)

    def _show_no_logs(self, no_logs: bool | None) -> None:
        no_logs = bool(no_logs)
        self.set_class(no_logs, "-no-logs")
        if no_logs:
            texts = self.query("#no-logs-text")
            text = texts.first(Static) if texts else Static(id="no-logs-text")
            if not texts:
                panel = Vertical(text, Button("Open the demo sessions", id="open-demo", variant="primary"), id="no-logs")
                self.mount(panel, before="#search-body")
            where = "\n".join(f"  {p}" for p in self.context.roots.all_paths())
            text.update(Text(
                f"No agent logs found. Threadback looked in:\n{where}\n\n"
                "Use --claude-dir / --codex-dir / --pi-dir if yours are elsewhere, or look around the demo data:"
            ))

    def _stats_changed(self, _stats: object) -> None:
        if not self.request.has_query:
            self.query_one(ContextPane).clear(self._empty_hint())

    def _index_changed(self, _generation: int) -> None:
        if self.request.has_query:
            self.search(self.request, immediate=True)

    def _live_update(self, _generation: int) -> None:
        """New lines in a log: the same search again, the cursor kept on its row."""
        if self.request.has_query:
            self._keep_cursor = True
            self.search(self.request, immediate=True)

    def _memory_changed(self, _generation: int) -> None:
        """Another memory folder was opened: a search that includes memory asks it again."""
        if self.request.has_query and self.request.includes_memory:
            self.search(self.request, immediate=True)

    @on(Button.Pressed, "#open-demo")
    def _open_demo(self) -> None:
        self.post_message(OpenDemo())

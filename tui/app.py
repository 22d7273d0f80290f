"""The Threadback app: modes (search, sessions, memory, rules), app-wide keys, the index refresh.

Screens live in ``tui/screens``, widgets in ``tui/widgets``; this module only wires them up.
Screens get an ``AppContext`` (``tui.app_context``) when they are made and send requests up as
messages (``tui.requests``); they follow the app's live values (``index_generation`` when a
batch of new messages landed or the demo index replaced the real one, ``memory_generation``
when another memory folder was opened) through the context.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from textual import events, on
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive

from indexer import Index, IndexError_, IndexStats, SourceRoots
from indexer.agents.launch_argv import resume_line
from indexer.agents.settings import hooks_status, project_settings_path, user_settings_path
from indexer.app_state import AppState
from indexer.project_scope import ProjectScope, project_scope_of
from tui import requests
from tui.agent_launch import AgentRunner, LaunchesAgents
from tui.app_context import CLOCK_TICK_SECONDS, AppContext, IndexActivity, short_path
from tui.clipboard import copy_text
from tui.commands import ThreadbackCommands
from tui.display.log_text import visible
from tui.index_runner import HooksState, IndexRunner
from tui.live_updates import LiveUpdates
from tui.screens.confirm import ConfirmScreen
from tui.screens.help import HelpScreen
from tui.screens.hooks import AgentFiles, HooksScreen, SettingsScope
from tui.screens.memory import MemoryScreen
from tui.screens.rules import RulesScreen
from tui.screens.search import SearchScreen
from tui.screens.sessions import SessionsScreen
from tui.screens.transcript import TranscriptScreen
from tui.worker_errors import ReportsWorkerErrors

DemoOpener = Callable[[], tuple[Index, SourceRoots]]
PathLabel = Callable[[Path], str]
THEME = "textual-dark"  # built in; Textual downgrades it well on 256-colour terminals
HOME_MODES = ("search", "sessions")  # F2 / F3 go to the mode's box or tree, whatever was open


class ThreadbackApp(LiveUpdates, IndexRunner, LaunchesAgents, ReportsWorkerErrors, App[None]):
    """Search and browse coding agents' history."""

    # The memory and rules screens bring their own (scoped) styles, parsed when first shown.
    CSS_PATH = "app.tcss"
    TITLE = "Threadback"
    DEFAULT_MODE = "search"
    COMMANDS = App.COMMANDS | {ThreadbackCommands}
    BINDINGS = [
        Binding("f1,question_mark", "help", "Help", id="app.help", key_display="?"),
        Binding("f2", "switch_mode('search')", "Search", id="app.mode.search", priority=True),
        Binding("f3", "switch_mode('sessions')", "Sessions", id="app.mode.sessions", priority=True),
        Binding("f4", "switch_mode('memory')", "Memory", id="app.mode.memory", priority=True),
        Binding("f5", "switch_mode('rules')", "Rules", id="app.mode.rules", priority=True),
        # Hidden by default, shown by the footer when there is room (tui.widgets.key_footer).
        Binding("f6", "hooks", "Hooks and MCP", id="app.hooks", priority=True, show=False),
        Binding("ctrl+r", "refresh_index", "Re-index", id="app.refresh_index", show=False),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True, show=False),
    ]

    # The live values screens follow through the context (see tui.app_context.LIVE_VALUES).
    stats: reactive[IndexStats | None] = reactive(None)
    activity: reactive[IndexActivity | None] = reactive(None)
    index_generation: reactive[int] = reactive(0)
    no_logs: reactive[bool] = reactive(False)
    pending_rules: reactive[int] = reactive(0)
    hooks: reactive[HooksState | None] = reactive(None)
    memory_generation: reactive[int] = reactive(0)
    index_problem: reactive[str | None] = reactive(None)  # a failed index run, files still failing
    live_status: reactive[str | None] = reactive(None)  # "live", or "live off: why" (tui.live_updates)
    live_generation: reactive[int] = reactive(0)  # bumped when a live update stored new lines
    config_problem: str | None = None  # why the config file was not used (``make_app``)
    agent_files: AgentFiles | None = None  # Codex's and the MCP config files F6 reads (None: found)
    clock_tick: reactive[int] = reactive(0)  # the one tick every age on screen follows (tui.app_context)

    def __init__(
        self,
        context: AppContext,
        *,
        refresh_on_start: bool,
        demo_opener: DemoOpener | None,
        offer_demo: bool,
        claude_settings: tuple[Path, Path],
        live: bool = False,
        live_off_reason: str | None = None,
    ) -> None:
        super().__init__()
        self.live = live
        self.live_off_reason = live_off_reason
        self.context = context
        context.connect(self)
        self.claude_settings = claude_settings
        self.refresh_on_start = refresh_on_start
        self.demo_opener = demo_opener
        self.offer_demo = offer_demo
        self._demo_offered = False
        self.add_mode("search", lambda: SearchScreen(self.context))
        self.add_mode("sessions", lambda: SessionsScreen(self.context))
        self.add_mode("memory", self._memory_screen)
        self.add_mode("rules", self._rules_screen)
        # The counts are read before the app runs, so its first frame shows them: a few
        # milliseconds (they are kept in the index's meta table) and no screen to freeze yet.
        # A thread would be starved by Textual's start-up until after the first frames.
        self._first_counts: tuple[IndexStats, bool] | None = None
        try:
            self._first_counts = self._read_counts()
        except (IndexError_, OSError):
            pass  # load_stats tries again from on_mount and the app reports it
        if self._first_counts is not None:
            stats, logs_exist = self._first_counts
            self.set_reactive(ThreadbackApp.stats, stats)
            self.set_reactive(ThreadbackApp.no_logs, not logs_exist and stats.sessions == 0)

    async def action_switch_mode(self, mode: str) -> None:
        """F2 puts the cursor in the search box and F3 on the sessions tree, whatever was open in
        that mode before (a transcript, a dialog): the screens above the mode's own are closed."""
        if mode != self.current_mode:
            await self.switch_mode(mode)
        if mode in HOME_MODES:
            while len(self.screen_stack) > 1:
                self.pop_screen()
            focus_home = getattr(self.screen, "focus_home", None)
            if focus_home is not None:
                focus_home()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The key of the mode on show does nothing there (it leaves the footer to the others),
        unless the focus is away from where that key puts it."""
        if action == "switch_mode" and parameters and parameters[0] == self.current_mode \
                and len(self.screen_stack) == 1:
            at_home = getattr(self.screen, "at_home", None)
            return at_home is not None and not at_home()
        return True

    async def on_event(self, event: events.Event) -> None:
        """Where a person may be typing, keys are text: a printable key pressed on a list whose
        screen has a box to type in (``type_ahead_box``) moves the focus to that box first, at
        once (not after the keys queued behind it), so this key and every later one land there
        in order."""
        if isinstance(event, events.Key) and not event.is_forwarded and event.is_printable and event.character:
            self._type_ahead(event.key)
        await super().on_event(event)

    def _type_ahead(self, key: str) -> None:
        focused = self.focused
        if key == "space" and focused is not None and "space" in focused._bindings.key_to_bindings:
            return  # a word never starts with a space: it keeps its list meaning (expand, mark)
        type_ahead_box = getattr(self.screen, "type_ahead_box", None)
        box = type_ahead_box(focused) if type_ahead_box is not None else None
        if box is not None and box is not focused:
            self.screen.set_focus(box, scroll_visible=False)

    def _memory_screen(self) -> MemoryScreen:
        return MemoryScreen(self.context.memory_store(), now=self.context.aware_now,
                            folder_label=self.context.path_label, context=self.context)

    def _rules_screen(self) -> RulesScreen:
        return RulesScreen(self.context.rule_store(), now=self.context.aware_now, context=self.context)

    # -- start-up and the index run ---------------------------------------------------
    def on_mount(self) -> None:
        self.theme = THEME
        if self._first_counts is not None:
            self.call_after_refresh(self.offer_demo_if_no_logs)  # over the first screen
        else:
            self.load_stats()
        self.load_extras()
        if self.refresh_on_start:
            self.refresh_index()
        if self.live:
            self.start_live()
        elif self.live_off_reason:
            self.live_status = f"live off: {self.live_off_reason}"
        self.set_interval(CLOCK_TICK_SECONDS, self.tick_clock)
        if self.config_problem:  # once, at start: the file is read once per run
            self.notify(self.config_problem, title="Config file not used", severity="error", timeout=30, markup=False)

    def tick_clock(self) -> None:
        self.clock_tick += 1

    def on_unmount(self) -> None:
        self.stop_live()

    # -- the demo --------------------------------------------------------------------------
    def offer_demo_if_no_logs(self) -> None:
        """Ask once, ever: the answer is remembered in the data dir (``indexer.app_state``), and
        the search screen's panel keeps offering the demo."""
        if self.no_logs and self.offer_demo and not self.context.demo and not self._demo_offered:
            self._demo_offered = True
            if not AppState.load().demo_offered:
                self.offer_demo_sessions()

    def offer_demo_sessions(self) -> None:
        paths = self.context.roots.all_paths()
        where = ", ".join(str(p) for p in paths[:3]) + (", …" if len(paths) > 3 else "")

        def answered(yes: bool | None) -> None:
            state = AppState.load()
            state.demo_offered = True
            state.save()
            if yes:
                self.action_open_demo()

        self.push_screen(
            ConfirmScreen(
                "No agent logs here",
                f"Threadback found no Claude Code, Codex or Pi logs (looked in {where}).\n\n"
                "Open the bundled demo sessions to see every screen working?",
                yes="Open the demo sessions",
                no="Not now",
            ),
            answered,
        )

    def action_open_demo(self) -> None:
        """Switch to the bundled demo sessions (their own index file) and index them."""
        context = self.context
        if context.demo or self.demo_opener is None:
            return
        self.workers.cancel_group(self, "index")
        context.index, context.roots = self.demo_opener()
        if context.memory_dir is None:
            from tui.demo import demo_memory_dir

            self._use_memory_folder(demo_memory_dir())
        context.demo = True
        context.index_label = f"{context.index.path.name} (demo)"
        self.no_logs = False
        self.stats = None
        self.index_generation += 1
        self.load_stats()
        self.refresh_index()
        if self.live:
            self.start_live()

    @on(requests.OpenDemo)
    def _open_demo_requested(self) -> None:
        self.action_open_demo()

    # -- memory and rules ------------------------------------------------------------------
    def _use_memory_folder(self, folder: Path) -> None:
        """Every screen follows one memory folder: the context names it, the screens follow
        ``memory_generation`` (search, memory and rules read it again), the pending count too."""
        self.context.memory_dir = folder
        self.memory_generation += 1
        self.load_extras()

    def on_memory_screen_folder_changed(self, event: MemoryScreen.FolderChanged) -> None:
        self._use_memory_folder(event.folder)

    def on_rules_screen_pending_count_changed(self, event: RulesScreen.PendingCountChanged) -> None:
        self.pending_rules = event.count

    def on_rules_screen_open_session(self, event: RulesScreen.OpenSession) -> None:
        session = self.context.index.session(event.session_id)
        if session is None:
            self.notify(f"No indexed session {visible(event.session_id)}", severity="warning")
            return
        self.open_transcript(session)

    def on_rules_screen_leave(self, event: RulesScreen.Leave) -> None:
        self.switch_mode("search")

    @on(requests.OpenMemory)
    async def open_memory(self, request: requests.OpenMemory) -> None:
        """Switch to the memory mode with one memory (``MemoryHit.kind``/``.id``) selected."""
        await self.switch_mode("memory")
        if isinstance(self.screen, MemoryScreen):
            self.screen.show_memory(request.kind, request.ref)

    # -- Claude Code hooks -----------------------------------------------------------------
    def settings_scopes(self) -> list[SettingsScope]:
        user, project = self.claude_settings
        name = self.context.project_name
        label = self.context.path_label
        project_title = f"Project settings ({name})" if name else "Project settings"
        return [
            SettingsScope("user", "User settings", user, label(user)),
            SettingsScope("project", project_title, project, label(project)),
        ]

    def read_hooks(self) -> HooksState:
        """Which Threadback hooks the two settings files hold (blocking: call from a worker)."""
        return tuple((scope.key, hooks_status(scope.path)) for scope in self.settings_scopes())

    def action_hooks(self) -> None:
        if not isinstance(self.screen, (HooksScreen, ConfirmScreen)):
            self.push_screen(HooksScreen(self.settings_scopes(), agent_files=self.agent_files,
                                         label=self.context.path_label))

    def on_hooks_screen_status_loaded(self, event: HooksScreen.StatusLoaded) -> None:
        self.hooks = event.statuses

    # -- shared actions ----------------------------------------------------------------
    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            hooks = self.hooks if self.hooks is not None else self.read_hooks()
            self.push_screen(HelpScreen(self.screen, app_bindings=self.BINDINGS, hooks=hooks))

    @on(requests.OpenTranscript)
    def _open_transcript_requested(self, request: requests.OpenTranscript) -> None:
        self.open_transcript(request.session, request.message_id, request.find)

    def open_transcript(self, session, message_id: int | None = None, find: str = "") -> None:
        self.push_screen(TranscriptScreen(self.context, session, focus_message_id=message_id, find=find))

    @on(requests.CopySession)
    def copy_session(self, request: requests.CopySession) -> None:
        """Copy a session's id or its resume command; toast it."""
        session = request.session
        if request.what == "id":
            text, label = session.session_id, "session id"
        else:
            text, label = resume_line(session, self.context.index.parent(session)), "resume command"
        copy_text(self, text)
        self.notify(visible(text), title=f"Copied the {label}", timeout=4, markup=False)


def _default_demo_opener() -> tuple[Index, SourceRoots]:
    from tui.demo import demo_index_and_roots

    return demo_index_and_roots()


def make_app(
    index: Index,
    roots: SourceRoots,
    *,
    now: Callable[[], float] | None = None,
    demo: bool = False,
    refresh_on_start: bool = True,
    index_label: str | None = None,
    project_name: str | None = None,
    project_scope: ProjectScope | None = None,
    demo_opener: DemoOpener | None = None,
    offer_demo: bool = True,
    memory_dir: Path | None = None,
    claude_settings: tuple[Path, Path] | None = None,
    path_label: PathLabel | None = None,
    agent_runner: AgentRunner | None = None,
    live: bool = False,
    live_off_reason: str | None = None,
    config_problem: str | None = None,
    agent_files: AgentFiles | None = None,
) -> ThreadbackApp:
    """The one way to build the app: used by ``threadback``, the tests and the screenshot script.

    ``now`` fixes the clock for "3 days ago"; ``index_label`` is what the status line calls the
    index (tests pass a fixed name); ``project_scope`` is what "this project only" keeps (default:
    the git repository holding the current folder, else that folder: ``indexer.project_scope``)
    and ``project_name`` what the project is called (default: the scope's folder name); ``memory_dir`` is the memory folder (default: resolved
    like the CLI's: ``$THREADBACK_MEMORY_DIR``, ``./memory``, the global one);
    ``claude_settings`` is the (user, project) pair of Claude Code settings files the hooks
    screen reads and writes (default: ``$CLAUDE_CONFIG_DIR``/``~/.claude`` and the current
    folder's ``.claude``); ``path_label`` is how a path is shown (default ``~/…``);
    ``agent_runner`` runs an agent for ``R``/``F`` (default: with the app suspended); ``live``
    watches the log folders and shows new lines as they are written (``threadback`` turns it on
    unless ``--no-live`` or the config says otherwise: ``live_off_reason`` says which);
    ``config_problem`` is why the config file could not be used, shown once as the app opens;
    ``agent_files`` are the Codex and MCP config files F6 shows (default: found like the CLI's).
    """
    label = index_label if index_label is not None else short_path(index.path)
    if demo and index_label is None:
        label += " (demo)"
    scope = project_scope if project_scope is not None else project_scope_of(Path.cwd())
    context = AppContext(
        index,
        roots,
        now=now or time.time,
        memory_dir=memory_dir,
        project_name=project_name if project_name is not None else (scope.name or None),
        project_scope=scope,
        index_label=label,
        path_label=path_label or short_path,
        demo=demo,
    )
    app = ThreadbackApp(
        context,
        refresh_on_start=refresh_on_start,
        demo_opener=demo_opener or _default_demo_opener,
        offer_demo=offer_demo,
        claude_settings=claude_settings or (user_settings_path(), project_settings_path(Path.cwd())),
        live=live,
        live_off_reason=live_off_reason,
    )
    if agent_runner is not None:
        app.agent_runner = agent_runner
    app.config_problem = config_problem
    app.agent_files = agent_files
    return app

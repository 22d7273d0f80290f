"""The Threadback app: modes (search, sessions, memory, rules), app-wide keys, the index refresh.

Screens live in ``tui/screens``, widgets in ``tui/widgets``; this module only wires them up.
Every screen reads the index through ``app.index`` and re-reads when ``index_generation``
changes (a batch of new messages landed, or the demo index replaced the real one).
"""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.worker import get_current_worker

from indexer import Index, IndexBusyError, IndexError_, IndexProgress, IndexStats, IndexSummary, Session, SourceRoots, resume_command
from indexer.agents.settings import HooksStatus, hooks_status, project_settings_path, user_settings_path
from indexer.memory import MemoryStore
from indexer.rules import RuleStore
from tui.clipboard import copy_text
from tui.commands import ThreadbackCommands
from tui.display.log_text import visible
from tui.screens.confirm import ConfirmScreen
from tui.screens.help import HelpScreen
from tui.screens.hooks import HooksScreen, SettingsScope
from tui.screens.placeholder import memory_screen, rules_screen
from tui.screens.search import SearchScreen
from tui.screens.sessions import SessionsScreen
from tui.screens.transcript import TranscriptScreen

DemoOpener = Callable[[], tuple[Index, SourceRoots]]
PathLabel = Callable[[Path], str]
HooksState = tuple[tuple[str, HooksStatus], ...]  # (scope key, status) for user and project settings
THEME = "textual-dark"  # built in; Textual downgrades it well on 256-colour terminals
PROGRESS_INTERVAL = 0.25  # seconds between progress repaints from an index run
RESEARCH_INTERVAL = 1.0  # seconds between re-running the search while new messages land
BIG_RUN_BYTES = 50_000_000  # an index run reading more than this shows a progress bar


@dataclasses.dataclass(frozen=True)
class IndexActivity:
    """What the status line shows while an index run is going."""

    progress: IndexProgress
    show_bar: bool


class ThreadbackApp(App[None]):
    """Search and browse coding agents' history."""

    # The memory and rules screens bring their own (scoped) styles, parsed when first shown.
    CSS_PATH = "app.tcss"
    TITLE = "Threadback"
    MODES = {
        "search": SearchScreen,
        "sessions": SessionsScreen,
        # "memory" and "rules" are added per app in __init__: they need its memory folder.
    }
    DEFAULT_MODE = "search"
    COMMANDS = App.COMMANDS | {ThreadbackCommands}
    BINDINGS = [
        Binding("f1,question_mark", "help", "Help", id="app.help", key_display="?"),
        Binding("f2", "switch_mode('search')", "Search", id="app.mode.search", priority=True),
        Binding("f3", "switch_mode('sessions')", "Sessions", id="app.mode.sessions", priority=True),
        Binding("f4", "switch_mode('memory')", "Memory", id="app.mode.memory", priority=True),
        Binding("f5", "switch_mode('rules')", "Rules", id="app.mode.rules", priority=True),
        Binding("f6", "hooks", "Claude Code hooks", id="app.hooks", priority=True, show=False),
        Binding("ctrl+r", "refresh_index", "Re-index", id="app.refresh_index", show=False),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True, show=False),
    ]

    stats: reactive[IndexStats | None] = reactive(None)
    activity: reactive[IndexActivity | None] = reactive(None)
    index_generation: reactive[int] = reactive(0)
    no_logs: reactive[bool] = reactive(False)
    pending_rules: reactive[int] = reactive(0)
    hooks: reactive[HooksState | None] = reactive(None)

    class IndexProgressed(Message):
        def __init__(self, progress: IndexProgress) -> None:
            super().__init__()
            self.progress = progress

    class IndexFinished(Message):
        def __init__(self, summary: IndexSummary | None) -> None:
            super().__init__()
            self.summary = summary

    class StatsLoaded(Message):
        def __init__(self, stats: IndexStats, logs_exist: bool) -> None:
            super().__init__()
            self.stats = stats
            self.logs_exist = logs_exist

    class ExtrasLoaded(Message):
        """What the status line and help show besides the index: pending rules, hooks."""

        def __init__(self, pending_rules: int, hooks: HooksState) -> None:
            super().__init__()
            self.pending_rules = pending_rules
            self.hooks = hooks

    def __init__(
        self,
        index: Index,
        roots: SourceRoots,
        *,
        now: Callable[[], float],
        demo: bool,
        refresh_on_start: bool,
        index_label: str,
        project_name: str | None,
        demo_opener: DemoOpener | None,
        offer_demo: bool,
        memory_dir: Path | None = None,
        claude_settings: tuple[Path, Path],
        path_label: PathLabel,
    ) -> None:
        super().__init__()
        self.memory_dir = memory_dir
        self.claude_settings = claude_settings
        self.path_label = path_label
        self.add_mode("memory", lambda: memory_screen(store=self.memory_store(), now=self.aware_now,
                                                      folder_label=self.path_label))
        self.add_mode("rules", lambda: rules_screen(store=self.rule_store(), now=self.aware_now))
        self.index = index
        self.roots = roots
        self.now = now
        self.demo = demo
        self.refresh_on_start = refresh_on_start
        self.index_label = index_label
        self.project_name = project_name
        self.demo_opener = demo_opener
        self.offer_demo = offer_demo
        self._last_research = 0.0
        self._messages_seen = 0
        self._demo_offered = False
        # The counts are read before the app runs, so its first frame shows them: a few
        # milliseconds (they are kept in the index's meta table) and no screen to freeze yet.
        # A thread would be starved by Textual's start-up until after the first frames.
        self._first_counts: tuple[IndexStats, bool] | None = None
        try:
            self._first_counts = self._read_counts()
        except (IndexError_, OSError, sqlite3.Error):
            pass  # load_stats tries again from on_mount and the app reports it
        if self._first_counts is not None:
            stats, logs_exist = self._first_counts
            self.set_reactive(ThreadbackApp.stats, stats)
            self.set_reactive(ThreadbackApp.no_logs, not logs_exist and stats.sessions == 0)

    # -- start-up and the index run ---------------------------------------------------
    def on_mount(self) -> None:
        self.theme = THEME
        if self._first_counts is not None:
            self.call_after_refresh(self._offer_demo_if_no_logs)  # over the first screen
        else:
            self.load_stats()
        self.load_extras()
        if self.refresh_on_start:
            self.refresh_index()

    def _read_counts(self) -> tuple[IndexStats, bool]:
        return self.index.stats(), any(path.exists() for path in self.roots.all_paths())

    def _read_extras(self) -> tuple[int, HooksState]:
        try:
            pending = len(self.rule_store().pending())
        except Exception:  # noqa: BLE001 - a broken rules file must not stop the app; the pane says why
            pending = 0
        return pending, self.read_hooks()

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False)
    def load_stats(self) -> None:
        """Counts first (the status line waits for them), then pending rules and hooks."""
        worker = get_current_worker()
        stats, logs_exist = self._read_counts()
        if worker.is_cancelled:  # a newer load (after an index run) wins
            return
        self.post_message(self.StatsLoaded(stats, logs_exist))
        extras = self._read_extras()
        if not worker.is_cancelled:
            self.post_message(self.ExtrasLoaded(*extras))

    @work(thread=True, exclusive=True, group="extras", exit_on_error=False)
    def load_extras(self) -> None:
        self.post_message(self.ExtrasLoaded(*self._read_extras()))

    def on_threadback_app_extras_loaded(self, event: ExtrasLoaded) -> None:
        self.pending_rules = event.pending_rules
        self.hooks = event.hooks

    def on_threadback_app_stats_loaded(self, event: StatsLoaded) -> None:
        self.stats = event.stats
        self.no_logs = not event.logs_exist and event.stats.sessions == 0
        self._offer_demo_if_no_logs()

    def _offer_demo_if_no_logs(self) -> None:
        if self.no_logs and self.offer_demo and not self.demo and not self._demo_offered:
            self._demo_offered = True
            self.offer_demo_sessions()

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def refresh_index(self) -> None:
        """Bring the index up to date; progress and new batches come back as messages."""
        worker = get_current_worker()
        last_post = 0.0

        def on_progress(progress: IndexProgress) -> None:
            nonlocal last_post
            moment = time.monotonic()
            if moment - last_post < PROGRESS_INTERVAL and progress.files_done < progress.files_total:
                return
            last_post = moment
            self.post_message(self.IndexProgressed(dataclasses.replace(progress)))

        summary: IndexSummary | None = None
        try:
            summary = self.index.update(self.roots, progress=on_progress, should_stop=lambda: worker.is_cancelled)
        except IndexBusyError:
            self.call_from_thread(
                self.notify, "Another Threadback run is updating the index; searching what is there so far.",
                title="Index busy", severity="information",
            )
        except IndexError_ as exc:
            self.call_from_thread(self.notify, str(exc), title="Index problem", severity="error", timeout=10)
        self.post_message(self.IndexFinished(summary))

    def action_refresh_index(self) -> None:
        self.refresh_index()

    def on_threadback_app_index_progressed(self, event: IndexProgressed) -> None:
        progress = event.progress
        first_run = self.stats is not None and self.stats.sessions == 0
        self.activity = IndexActivity(progress, show_bar=first_run or progress.bytes_total > BIG_RUN_BYTES)
        moment = time.monotonic()
        if progress.messages_added > self._messages_seen and moment - self._last_research >= RESEARCH_INTERVAL:
            # A batch has been committed: let the screens show what is new.
            self._last_research = moment
            self._messages_seen = progress.messages_added
            self.index_generation += 1

    def on_threadback_app_index_finished(self, event: IndexFinished) -> None:
        self.activity = None
        self._messages_seen = 0
        if event.summary is not None and (event.summary.messages_added or event.summary.files_changed):
            self.index_generation += 1
        self.load_stats()

    # -- the demo --------------------------------------------------------------------------
    def offer_demo_sessions(self) -> None:
        paths = self.roots.all_paths()
        where = ", ".join(str(p) for p in paths[:3]) + (", …" if len(paths) > 3 else "")

        def answered(yes: bool | None) -> None:
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
        if self.demo or self.demo_opener is None:
            return
        self.workers.cancel_group(self, "index")
        self.index, self.roots = self.demo_opener()
        if self.memory_dir is None:
            from tui.demo import demo_memory_dir

            self.memory_dir = demo_memory_dir()
        self.demo = True
        self.index_label = f"{self.index.path.name} (demo)"
        self.no_logs = False
        self.stats = None
        self.index_generation += 1
        self.load_stats()
        self.refresh_index()

    # -- memory and rules ------------------------------------------------------------------
    def aware_now(self) -> datetime:
        """The app's clock as the aware datetime the memory and rule stores take."""
        return datetime.fromtimestamp(self.now(), tz=timezone.utc)

    def memory_store(self) -> MemoryStore:
        return MemoryStore.open(explicit=self.memory_dir)

    def rule_store(self) -> RuleStore:
        return RuleStore(self.memory_store().folder)

    def on_rules_screen_pending_count_changed(self, event) -> None:
        self.pending_rules = event.count

    def on_rules_screen_open_session(self, event) -> None:
        session = self.index.session(event.session_id)
        if session is None:
            self.notify(f"No indexed session {visible(event.session_id)}", severity="warning")
            return
        self.open_transcript(session)

    def on_rules_screen_leave(self, event) -> None:
        self.switch_mode("search")

    async def open_memory(self, kind: str, ref: str) -> None:
        """Switch to the memory mode with one memory (``MemoryHit.kind``/``.id``) selected."""
        await self.switch_mode("memory")
        show = getattr(self.screen, "show_memory", None)  # the placeholder has none
        if show is not None:
            show(kind, ref)

    # -- Claude Code hooks -----------------------------------------------------------------
    def settings_scopes(self) -> list[SettingsScope]:
        user, project = self.claude_settings
        project_title = f"Project settings ({self.project_name})" if self.project_name else "Project settings"
        return [
            SettingsScope("user", "User settings", user, self.path_label(user)),
            SettingsScope("project", project_title, project, self.path_label(project)),
        ]

    def read_hooks(self) -> HooksState:
        """Which Threadback hooks the two settings files hold (blocking: call from a worker)."""
        return tuple((scope.key, hooks_status(scope.path)) for scope in self.settings_scopes())

    def action_hooks(self) -> None:
        if not isinstance(self.screen, (HooksScreen, ConfirmScreen)):
            self.push_screen(HooksScreen(self.settings_scopes()))

    def on_hooks_screen_status_loaded(self, event: HooksScreen.StatusLoaded) -> None:
        self.hooks = event.statuses

    # -- shared actions ----------------------------------------------------------------
    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def open_transcript(self, session: Session, message_id: int | None = None, find: str = "") -> None:
        self.push_screen(TranscriptScreen(session, focus_message_id=message_id, find=find))

    def copy_session(self, session: Session, what: str) -> None:
        """Copy a session's id (``what="id"``) or its resume command (``"resume"``); toast it."""
        if what == "id":
            text, label = session.session_id, "session id"
        else:
            text, label = resume_command(session, self.index.parent(session)), "resume command"
        copy_text(self, text)
        self.notify(visible(text), title=f"Copied the {label}", timeout=4)



def _default_demo_opener() -> tuple[Index, SourceRoots]:
    from tui.demo import demo_index_and_roots

    return demo_index_and_roots()


def short_path(path: Path) -> str:
    """``~/.local/share/threadback/index.sqlite3`` rather than the full home path."""
    try:
        return "~/" + str(path.expanduser().resolve().relative_to(Path.home()))
    except ValueError:
        return str(path)


def make_app(
    index: Index,
    roots: SourceRoots,
    *,
    now: Callable[[], float] | None = None,
    demo: bool = False,
    refresh_on_start: bool = True,
    index_label: str | None = None,
    project_name: str | None = None,
    demo_opener: DemoOpener | None = None,
    offer_demo: bool = True,
    memory_dir: Path | None = None,
    claude_settings: tuple[Path, Path] | None = None,
    path_label: PathLabel | None = None,
) -> ThreadbackApp:
    """The one way to build the app: used by ``threadback``, the tests and the screenshot script.

    ``now`` fixes the clock for "3 days ago"; ``index_label`` is what the status line calls the
    index (tests pass a fixed name); ``project_name`` is what "this project only" filters on
    (default: the current folder's name); ``memory_dir`` is the memory folder (default: resolved
    like the CLI's: ``$THREADBACK_MEMORY_DIR``, ``./memory``, the global one);
    ``claude_settings`` is the (user, project) pair of Claude Code settings files the hooks
    screen reads and writes (default: ``$CLAUDE_CONFIG_DIR``/``~/.claude`` and the current
    folder's ``.claude``); ``path_label`` is how a path is shown (default ``~/…``).
    """
    label = index_label if index_label is not None else short_path(index.path)
    if demo and index_label is None:
        label += " (demo)"
    return ThreadbackApp(
        index,
        roots,
        now=now or time.time,
        demo=demo,
        refresh_on_start=refresh_on_start,
        index_label=label,
        project_name=project_name if project_name is not None else (Path.cwd().name or None),
        demo_opener=demo_opener or _default_demo_opener,
        offer_demo=offer_demo,
        memory_dir=memory_dir,
        claude_settings=claude_settings or (user_settings_path(), project_settings_path(Path.cwd())),
        path_label=path_label or short_path,
    )

"""Live updates while the app is open: a watcher names the log files that changed, a thread
worker indexes just those (``Index.update(only=...)``) and the screens show what is new
without moving the cursor (they follow ``live_generation``).

A run that finds the index locked (the app's own full run, a hook's, the CLI's) skips that
tick quietly and tries the files again a second later."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.timer import Timer

from indexer import ConfigError, IndexBusyError, IndexError_, IndexSummary
from tui.app_context import AppContext
from tui.log_watcher import LogWatcher

if TYPE_CHECKING:  # the type checker sees the App this is mixed into; at run time a plain mixin
    from textual.app import App
    from textual.worker import Worker
    from indexer.ingest.outcome import RunOutcome
    _AppBase = App[None]
else:
    _AppBase = object

RETRY_SECONDS = 1.0  # files a locked index kept waiting are tried again this often
LIVE = "live"


class LiveUpdates(_AppBase):
    """Mixed into the app, which provides the context, ``index_generation``, ``load_stats``
    and ``show_run_outcome``."""

    context: AppContext
    live_status: str | None
    live_generation: int
    _watcher: LogWatcher | None = None
    _live_pending: set[str]
    _live_running: bool = False
    _live_timer: Timer | None = None

    if TYPE_CHECKING:  # the app's (IndexRunner's), declared here only: a method here would shadow it
        def load_stats(self) -> Worker[None]: ...
        def show_run_outcome(self, outcome: RunOutcome | None) -> None: ...

    @dataclasses.dataclass
    class LogsChanged(Message):
        paths: list[str]

    @dataclasses.dataclass
    class LiveStopped(Message):
        reason: str

    @dataclasses.dataclass
    class LiveIndexed(Message):
        summary: IndexSummary | None
        retry: list[str]

    def start_live(self) -> None:
        """Watch the log folders that exist (again, after the demo replaced the roots)."""
        self.stop_live()
        self._live_pending = set()
        folders = [path for path in self.context.roots.all_paths() if Path(path).is_dir()]
        if not folders:
            self.live_status = "live off: no log folders to watch"
            return
        self._watcher = LogWatcher(folders, self._changed_in_thread, self._stopped_in_thread)
        self._watcher.start()
        self.live_status = LIVE
        self._live_timer = self.set_interval(RETRY_SECONDS, self._index_pending, name="live retry")

    def stop_live(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        if self._live_timer is not None:
            self._live_timer.stop()
            self._live_timer = None

    # -- from the watcher's thread ---------------------------------------------------------
    def _changed_in_thread(self, paths: list[str]) -> None:
        self.post_message(self.LogsChanged(paths))

    def _stopped_in_thread(self, reason: str) -> None:
        self.post_message(self.LiveStopped(reason))

    # -- on the UI thread ---------------------------------------------------------------------
    def on_live_updates_logs_changed(self, event: LogsChanged) -> None:
        if self._watcher is not None and self._watcher.polling:
            self.live_status = f"{LIVE} (polling)"
        self._live_pending.update(event.paths)
        self._index_pending()

    def on_live_updates_live_stopped(self, event: LiveStopped) -> None:
        self.live_status = f"live off: {event.reason}"

    def _index_pending(self) -> None:
        if self._live_running or not getattr(self, "_live_pending", None):
            return
        paths = sorted(self._live_pending)
        self._live_pending.clear()
        self._live_running = True
        self.index_changed_logs(paths)

    @work(thread=True, group="live", exit_on_error=False)
    def index_changed_logs(self, paths: list[str]) -> None:
        """Index just the files that changed; a locked index keeps them for the next tick."""
        summary: IndexSummary | None = None
        retry: list[str] = []
        try:
            summary = self.context.index.update(self.context.roots, only=paths, where="app")
        except IndexBusyError:
            retry = paths
        except (IndexError_, ConfigError):  # the outcome is beside the index
            self.call_from_thread(self.show_run_outcome, self.context.index.last_run())
        finally:
            self.post_message(self.LiveIndexed(summary, retry))

    def on_live_updates_live_indexed(self, event: LiveIndexed) -> None:
        self._live_running = False
        self._live_pending.update(event.retry)
        summary = event.summary
        if summary is not None and (summary.messages_added or summary.files_changed):
            self.live_generation += 1
            self.load_stats()
        if not event.retry:
            self._index_pending()  # what came in meanwhile

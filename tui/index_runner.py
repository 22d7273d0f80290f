"""Keeping the index and the app's counts current while the app runs: the background index run,
its progress for the status line, new batches shown as they land, and the counts, pending
rules and hooks read again after it. A failed run, the app's own or a hook's in the background,
is shown in the status line and once as a notification."""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.worker import get_current_worker

from indexer import ConfigError, IndexBusyError, IndexError_, IndexProgress, IndexStats, IndexSummary
from indexer.ingest.outcome import RunOutcome
from indexer.agents.settings import HooksStatus
from tui.app_context import AppContext, IndexActivity

if TYPE_CHECKING:  # the type checker sees the App this is mixed into; at run time a plain mixin
    from textual.app import App
    _AppBase = App[None]
else:
    _AppBase = object

HooksState = tuple[tuple[str, HooksStatus], ...]  # (scope key, status) for user and project settings
PROGRESS_INTERVAL = 0.25  # seconds between progress repaints from an index run
RESEARCH_INTERVAL = 1.0  # seconds between re-running the search while new messages land
BIG_RUN_BYTES = 50_000_000  # an index run reading more than this shows a progress bar
# After a full run the app merges the full-text segments a build left (searches read each one)
# in slices, holding the index lock for one slice at a time and pausing between them.
MERGE_SLICE_SECONDS = 0.5
MERGE_PAUSE_SECONDS = 0.5


class IndexRunner(_AppBase):
    """Mixed into the app, which provides the context, the live values (reactives), the hooks
    reading and the demo offer."""

    context: AppContext
    stats: IndexStats | None
    activity: IndexActivity | None
    index_generation: int
    no_logs: bool
    pending_rules: int
    hooks: HooksState | None
    index_problem: str | None
    _last_research: float = 0.0
    _messages_seen: int = 0
    _notified_run: float = 0.0  # finished_at of the last failed run a notification told of
    _notified_message: str = ""  # what it said: the same failure again (a broken config file) is not told twice

    if TYPE_CHECKING:  # the app's own (declared here only: a method here would shadow it)
        def read_hooks(self) -> HooksState: ...
        def offer_demo_if_no_logs(self) -> None: ...

    @dataclasses.dataclass
    class IndexProgressed(Message):
        progress: IndexProgress

    @dataclasses.dataclass
    class IndexFinished(Message):
        summary: IndexSummary | None

    @dataclasses.dataclass
    class StatsLoaded(Message):
        stats: IndexStats
        logs_exist: bool

    @dataclasses.dataclass
    class ExtrasLoaded(Message):
        """What the status line and help show besides the index: pending rules, hooks."""

        pending_rules: int
        hooks: HooksState
        last_run: RunOutcome | None = None

    @property
    def _writing(self) -> threading.Lock:
        """Held by the app's own index run or merge slice: a run started while a slice is
        stopping waits for it instead of finding the index busy."""
        lock = self.__dict__.get("_writing_lock")
        return lock if lock is not None else self.__dict__.setdefault("_writing_lock", threading.Lock())

    def _read_counts(self) -> tuple[IndexStats, bool]:
        return self.context.index.stats(), any(path.exists() for path in self.context.roots.all_paths())

    def _read_extras(self) -> tuple[int, HooksState, RunOutcome | None]:
        try:
            pending = len(self.context.rule_store().pending())
        except Exception:  # noqa: BLE001 - a broken rules file must not stop the app; the pane says why
            pending = 0
        return pending, self.read_hooks(), self.context.index.last_run()

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

    def on_index_runner_extras_loaded(self, event: ExtrasLoaded) -> None:
        self.pending_rules = event.pending_rules
        self.hooks = event.hooks
        self.show_run_outcome(event.last_run)

    def show_run_outcome(self, outcome: RunOutcome | None) -> None:
        """The status line names a failed last run (or files still failing); a failure not told
        of yet also gets a notification."""
        if outcome is None:
            return
        self.index_problem = outcome.summary or None
        if not outcome.ok and outcome.finished_at > self._notified_run:
            self._notified_run = outcome.finished_at
            if outcome.message == self._notified_message:
                return  # the status line still names it
            self._notified_message = outcome.message
            title = "Background index run failed" if outcome.where == "hook" else "Index run failed"
            self.notify(outcome.message, title=title, severity="error", timeout=10, markup=False)

    def on_index_runner_stats_loaded(self, event: StatsLoaded) -> None:
        self.stats = event.stats
        self.no_logs = not event.logs_exist and event.stats.sessions == 0
        self.offer_demo_if_no_logs()

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
        # The merging stops at its next step (cancelled on the UI thread: asyncio is not thread-safe).
        self.call_from_thread(self.workers.cancel_group, self, "merge")
        try:
            with self._writing:
                summary = self.context.index.update(self.context.roots, progress=on_progress,
                                                    should_stop=lambda: worker.is_cancelled, where="app")
        except IndexBusyError:
            self.notify("Another Threadback run is updating the index; searching what is there so far.",
                        title="Index busy", severity="information")
        except (IndexError_, ConfigError):  # the outcome is beside the index
            # The run left its outcome beside the index; show it now (reading the counts after a
            # failed run may fail too).
            self.call_from_thread(self.show_run_outcome, self.context.index.last_run())
        finally:
            self.post_message(self.IndexFinished(summary))

    @work(thread=True, exclusive=True, group="merge", exit_on_error=False)
    def merge_while_idle(self) -> None:
        """Merge what the last run left, a slice at a time, until nothing is left; a run (the
        app's, a hook's) takes the lock between slices. A failure (read-only, a full disk)
        leaves the index as searchable as it was: the next run's slice tries again."""
        worker = get_current_worker()
        while not worker.is_cancelled:
            try:
                with self._writing:
                    if worker.is_cancelled or self.context.index.merge_segments(
                            MERGE_SLICE_SECONDS, should_stop=lambda: worker.is_cancelled):
                        return
            except IndexBusyError:
                pass  # another process's run: try after the pause
            except IndexError_:
                return
            pause_ends = time.monotonic() + MERGE_PAUSE_SECONDS
            while time.monotonic() < pause_ends and not worker.is_cancelled:
                time.sleep(0.05)

    def action_refresh_index(self) -> None:
        self.refresh_index()

    def on_index_runner_index_progressed(self, event: IndexProgressed) -> None:
        progress = event.progress
        first_run = self.stats is not None and self.stats.sessions == 0
        self.activity = IndexActivity(progress, show_bar=first_run or progress.bytes_total > BIG_RUN_BYTES)
        moment = time.monotonic()
        if progress.messages_added > self._messages_seen and moment - self._last_research >= RESEARCH_INTERVAL:
            # A batch has been committed: let the screens show what is new.
            self._last_research = moment
            self._messages_seen = progress.messages_added
            self.index_generation += 1

    def on_index_runner_index_finished(self, event: IndexFinished) -> None:
        self.activity = None
        self._messages_seen = 0
        if event.summary is not None and not event.summary.stopped and event.summary.segments_left:
            self.merge_while_idle()  # what the run's own slice did not finish
        if event.summary is not None and (event.summary.messages_added or event.summary.files_changed):
            self.index_generation += 1
        if event.summary is not None and not event.summary.stopped:
            self.index_problem = event.summary.status_note or None  # logs about to be lost, say

        self.load_stats()

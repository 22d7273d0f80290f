"""The status line: which index, how much is in it, when it was updated, and index progress."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static

from tui.display.humanize_time import ago
from tui.display.counts import plural

if TYPE_CHECKING:
    from tui.app_context import AppContext, IndexActivity


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return f" · about {seconds:.0f} s left"
    return f" · about {seconds / 60:.0f} min left"


def describe_activity(activity: "IndexActivity") -> str:
    p = activity.progress
    return (
        f"indexing {p.files_done:,}/{p.files_total:,} files · {p.bytes_done / 1e6:,.1f}/"
        f"{p.bytes_total / 1e6:,.1f} MB · {plural(p.sessions_touched, 'session')}"
        + (f" · {p.step}…" if p.step else _eta(p.eta_seconds))
    )


class StatusBar(Horizontal):
    """Mirrors the app's live ``stats``, ``activity`` and ``pending_rules``; each screen has its
    own copy. Without a context (a screen shown on its own) it stays empty."""

    DEFAULT_CSS = """
    StatusBar { height: 1; }
    StatusBar > #status-text { width: 1fr; height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    StatusBar > ProgressBar { width: 40; height: 1; display: none; }
    StatusBar.-big-run > ProgressBar { display: block; }
    """

    def __init__(self, context: AppContext | None = None) -> None:
        super().__init__()
        self.context = context

    def compose(self) -> ComposeResult:
        yield Static(id="status-text")
        # The progress bar is mounted by the first big index run: most starts never need it.

    def on_mount(self) -> None:
        if self.context is None or not self.context.is_live:
            return
        for name in ("stats", "activity", "pending_rules", "index_problem", "live_status", "clock_tick"):
            self.context.watch(self, name, self._repaint)

    def _repaint(self, _value: object = None) -> None:
        context = self.context
        assert context is not None
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(context.index_label, style="bold")
        stats = context.value("stats")
        if stats is not None:
            text.append(f" · {plural(stats.sessions, 'session')} · {plural(stats.messages, 'message')}")
            if stats.last_indexed:
                text.append(f" · updated {ago(stats.last_indexed, context.now())}")
            else:
                text.append(" · never updated")
        live = context.value("live_status")
        if live:
            text.append(" · ")
            text.append(live, style="bold" if live.startswith("live off") else "")
        pending = context.value("pending_rules")
        if pending:
            text.append(f" · {plural(pending, 'rule')} to review (F5)", style="bold")
        activity = context.value("activity")
        if activity is not None:
            text.append(" · ")
            text.append(describe_activity(activity), style="italic")
        problem = context.value("index_problem")
        if problem and activity is None:
            text.append(" · ")
            text.append(problem, style="bold red")
        self.query_one("#status-text", Static).update(text)
        big_run = activity is not None and activity.show_bar
        self.set_class(big_run, "-big-run")
        if big_run:
            bars = self.query(ProgressBar)
            bar = bars.first() if bars else None
            if bar is None:
                bar = ProgressBar(total=100, show_eta=False, id="status-progress")
                self.mount(bar)
            bar.update(progress=activity.progress.fraction * 100)

"""Background work that fails says so: a notification instead of a silent, empty pane.

Workers run with ``exit_on_error=False`` so one failing search does not end the app; their
failure arrives as a ``Worker.StateChanged`` message on the node that started them (it does not
bubble), so every screen and widget that starts workers mixes this in.
"""

from __future__ import annotations

from textual.worker import Worker, WorkerState

from tui.display.log_text import visible

# What a worker group is doing, for the message ("Loading the transcript failed: ...").
WORK_NAMES = {
    "search": "Searching",
    "context": "Loading the hit's context",
    "sessions": "Loading the sessions",
    "tree": "Loading the session tree",
    "transcript": "Loading the transcript",
    "hooks-status": "Reading the Claude Code settings",
    "hooks-write": "Writing the Claude Code settings",
    "stats": "Reading the index's counts",
    "extras": "Reading the rules and hooks",
    "index": "Updating the index",
}


class ReportsWorkerErrors:
    """Mixin for a Textual node: a worker of its that fails is shown as an error notification."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state != WorkerState.ERROR or worker.error is None:
            return
        what = WORK_NAMES.get(worker.group, "Background work")
        self.notify(  # type: ignore[attr-defined]
            f"{what} failed: {visible(str(worker.error))}", title="Something went wrong", severity="error",
            timeout=10, markup=False,
        )

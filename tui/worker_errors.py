"""Background work that fails says so: a notification instead of a silent, empty pane.

Workers run with ``exit_on_error=False`` so one failing search does not end the app; their
failure arrives as a ``Worker.StateChanged`` message on the node that started them (it does not
bubble), so every screen and widget that starts workers mixes this in.
"""

from __future__ import annotations

from textual.notifications import SeverityLevel
from textual.worker import Worker, WorkerState

from indexer import errors
from indexer.errors import kind_of
from tui.display.log_text import visible

# The one table from an error's kind (``indexer.errors``) to how loudly the app says it: what
# the person can fix by trying again or typing something else is a warning; the rest an error.
SEVERITIES: dict[str, SeverityLevel] = {
    errors.USAGE: "warning",
    errors.NOT_FOUND: "warning",
    errors.BUSY: "warning",
    errors.INDEX: "error",
    errors.READ_ONLY: "error",
    errors.DISK_FULL: "error",
    errors.REFUSED: "error",
    errors.INTERNAL: "error",
}


def severity_of(exc: BaseException) -> SeverityLevel:
    """The notification severity for an error: by its kind, "error" for one without."""
    kind = kind_of(exc)
    return "error" if kind is None else SEVERITIES[kind]

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
        self.notify(  # type: ignore[attr-defined]  # mixed into screens, widgets and the app: each has notify
            f"{what} failed: {visible(str(worker.error))}", title="Something went wrong", severity=severity_of(worker.error),
            timeout=10, markup=False,
        )

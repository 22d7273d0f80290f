"""Watching the agents' log folders while the app is open: which files changed, from a thread.

watchfiles (inotify, FSEvents, ReadDirectoryChangesW) tells of changes without rescanning a
folder; when the system refuses a watch (inotify's limit), it polls instead and says so. The
watcher only names files: the app indexes them (``tui.live_updates``)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

DEBOUNCE_MS = 250  # changes this close together come as one batch
STEP_MS = 50
POLL_DELAY_MS = 1000  # when watching falls back to polling

ChangesCallback = Callable[[list[str]], None]
StoppedCallback = Callable[[str], None]


class LogWatcher:
    """A daemon thread watching ``folders``; ``on_change`` and ``on_stopped`` run in that thread."""

    def __init__(self, folders: list[Path], on_change: ChangesCallback, on_stopped: StoppedCallback) -> None:
        self.folders = folders
        self.on_change = on_change
        self.on_stopped = on_stopped
        self.polling = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="threadback-log-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def _run(self) -> None:
        try:
            self._watch(force_polling=False)
        except Exception as exc:  # noqa: BLE001 - the OS refused a watch: poll instead
            if self._stop.is_set():
                return
            self.polling = True
            try:
                self._watch(force_polling=True)
            except Exception as again:  # noqa: BLE001 - give up, and say why
                self._stop.set()
                self.on_stopped(f"cannot watch the log folders ({_reason(again) or _reason(exc)})")

    def _watch(self, *, force_polling: bool) -> None:
        from watchfiles import watch  # its Rust extension loads only when the app watches

        for changes in watch(*self.folders, watch_filter=None, debounce=DEBOUNCE_MS, step=STEP_MS,
                             stop_event=self._stop, force_polling=force_polling, poll_delay_ms=POLL_DELAY_MS,
                             raise_interrupt=False, ignore_permission_denied=True):
            paths = sorted({path for _change, path in changes})
            if paths and not self._stop.is_set():
                self.on_change(paths)


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:120] or type(exc).__name__

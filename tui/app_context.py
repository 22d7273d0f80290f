"""What screens and widgets get from the app: one small object, handed down when they are made.

It holds what they read (the index, the log folders, the clock, the memory folder, how a path is
shown) and lets them follow the app's live values (index counts, index progress, new batches,
a changed memory folder) without knowing the app class. What they want the app to do goes up
as messages (``tui.requests``). The app changes the fields when it switches to the demo data or
to another memory folder, so a screen reads them when it needs them rather than keeping copies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer import Index, IndexProgress, SourceRoots
from indexer.memory import MemoryStore
from indexer.project_scope import ProjectScope
from indexer.rules import RuleStore

if TYPE_CHECKING:
    from textual.dom import DOMNode

# The app's live values a screen can follow with ``watch`` (reactives on the app):
#   stats             IndexStats | None   the index's counts
#   activity          IndexActivity | None  a running index run's progress
#   index_generation  int                 bumped when a batch of new messages landed
#   no_logs           bool                no agent logs were found on this machine
#   pending_rules     int                 rules waiting for review
#   hooks             tuple | None        which Claude Code hooks are installed
#   memory_generation int                 bumped when the memory folder changed
#   live_status       str | None          "live", "live (polling)" or "live off: why"
#   live_generation   int                 bumped when a live update stored new lines
#   clock_tick        int                 bumped every CLOCK_TICK_SECONDS: what shows an age ("3min
#                                          ago", "active") reads ``now()`` again on it, all together
LIVE_VALUES = ("stats", "activity", "index_generation", "no_logs", "pending_rules", "hooks", "memory_generation",
               "index_problem", "live_status", "live_generation", "clock_tick")
CLOCK_TICK_SECONDS = 60.0  # ages are written to the minute (``indexer.text.ages``)


@dataclass(frozen=True)
class IndexActivity:
    """What the status line shows while an index run is going (the live ``activity``)."""

    progress: IndexProgress
    show_bar: bool


def short_path(path: Path) -> str:
    """``~/.local/share/threadback/index.sqlite3`` rather than the full home path."""
    try:
        return "~/" + str(path.expanduser().resolve().relative_to(Path.home()))
    except ValueError:
        return str(path)


class AppContext:
    def __init__(
        self,
        index: Index,
        roots: SourceRoots,
        *,
        now: Callable[[], float],
        memory_dir: Path | None = None,
        project_name: str | None = None,
        project_scope: ProjectScope | None = None,
        index_label: str = "",
        path_label: Callable[[Path], str] = short_path,
        demo: bool = False,
    ) -> None:
        self.index = index
        self.roots = roots
        self.now = now
        self.memory_dir = memory_dir  # None: resolved like the CLI's (indexer.config)
        self.project_name = project_name  # what the hooks screen calls the project
        self.project_scope = project_scope  # what "this project only" (ctrl+o) keeps
        self.index_label = index_label  # what the status line calls the index
        self.path_label = path_label
        self.demo = demo
        self._live: DOMNode | None = None

    def aware_now(self) -> datetime:
        """The clock as the aware datetime the memory and rule stores take."""
        return datetime.fromtimestamp(self.now(), tz=timezone.utc)

    def memory_store(self) -> MemoryStore:
        return MemoryStore.open(explicit=self.memory_dir)

    def rule_store(self) -> RuleStore:
        """The rules live in the memory folder."""
        return RuleStore(self.memory_store().folder)

    # -- live values ---------------------------------------------------------------------------
    def connect(self, live: DOMNode) -> None:
        """Called by the app: ``live`` holds the values in ``LIVE_VALUES``."""
        self._live = live

    @property
    def is_live(self) -> bool:
        return self._live is not None

    def value(self, name: str) -> Any:
        """A live value now (None when the screen is shown without the app)."""
        if name not in LIVE_VALUES:
            raise KeyError(name)
        return getattr(self._live, name) if self._live is not None else None

    def watch(self, node: DOMNode, name: str, callback: Callable[[Any], None], *, init: bool = True) -> None:
        """Call ``callback`` on ``node`` whenever a live value changes (and now, with ``init``)."""
        if name not in LIVE_VALUES:
            raise KeyError(name)
        if self._live is not None:
            node.watch(self._live, name, callback, init=init)

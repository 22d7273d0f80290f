"""What an index run reports: progress while it runs, a summary when it ends."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class IndexProgress:
    files_total: int = 0
    files_done: int = 0
    bytes_total: int = 0
    bytes_done: int = 0
    sessions_touched: int = 0
    messages_added: int = 0
    current: str = ""
    step: str = ""  # what the run does once every log is read (search by meaning, merging)
    started: float = field(default_factory=time.monotonic)

    @property
    def fraction(self) -> float:
        if self.bytes_total:
            return min(1.0, self.bytes_done / self.bytes_total)
        return 1.0 if not self.files_total else self.files_done / self.files_total

    @property
    def eta_seconds(self) -> float | None:
        elapsed = time.monotonic() - self.started
        if self.bytes_done <= 0 or elapsed < 0.5:
            return None
        return elapsed * (self.bytes_total - self.bytes_done) / self.bytes_done


@dataclass
class IndexSummary:
    files_seen: int = 0
    files_new: int = 0
    files_appended: int = 0
    files_reindexed: int = 0
    files_missing: int = 0
    files_confirmed: int = 0  # change time moved or back after gone, bytes as indexed (hashes read, nothing re-indexed)
    files_returned: int = 0  # of those, back where a run found them gone (moved away and back)
    sessions_touched: int = 0
    messages_added: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    stopped: bool = False
    files_failing: int = 0  # files that could not be stored, this run or before, unchanged since
    archive_files: int = 0  # log files with a copy in the archive (indexer.archive)
    archive_bytes: int = 0  # what those copies take on disk
    segments_left: bool = True  # full-text segments may be left to merge (a build, a slice cut short)
    # Logs an agent deletes soon that the archive does not hold (indexer.agents.retention)
    retention_warnings: list[str] = field(default_factory=list)

    @property
    def failing_note(self) -> str:
        """"2 files still failing, see `threadback index --problems`", or "" when none are."""
        if not self.files_failing:
            return ""
        plural = "s" if self.files_failing != 1 else ""
        return f"{self.files_failing:,} file{plural} still failing, see `threadback index --problems`"

    @property
    def status_note(self) -> str:
        """The one line a status bar shows after the run: files failing, else logs at risk."""
        return self.failing_note or (self.retention_warnings[0] if self.retention_warnings else "")

    @property
    def files_changed(self) -> int:
        return self.files_new + self.files_appended + self.files_reindexed


ProgressCallback = Callable[[IndexProgress], None]

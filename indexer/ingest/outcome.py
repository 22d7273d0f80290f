"""How the last index run ended, kept beside the index: a run in the background (the Stop and
SessionEnd hooks' refresh, the app's run) fails where nobody sees it, so it leaves its outcome
where the app's status line and ``threadback index`` can show it.

A small JSON file, not a table: a run that failed because the index cannot be written (a full
disk, read-only media, damage) could not record that in the index itself.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class RunOutcome:
    finished_at: float
    ok: bool
    message: str = ""  # why it failed (one line), or "" when it did not
    files_failing: int = 0  # files skipped until they change, after this run
    messages_added: int = 0
    where: str = ""  # who ran it: "cli", "app", "hook"
    retention_warning: str = ""  # an agent deletes logs the archive does not hold (indexer.agents.retention)

    @property
    def summary(self) -> str:
        """One line for a status bar or a notification."""
        if not self.ok:
            return f"the last index run failed: {self.message}"
        if self.files_failing:
            plural = "s" if self.files_failing != 1 else ""
            return f"{self.files_failing:,} file{plural} still failing, see `threadback index --problems`"
        return self.retention_warning


def outcome_path(db_path: Path) -> Path:
    return Path(str(db_path) + ".last-run.json")


def record_outcome(db_path: Path, outcome: RunOutcome) -> None:
    """Write ``outcome`` atomically; a place that cannot be written keeps the previous one."""
    path = outcome_path(db_path)
    tmp = None
    try:
        # A name no other process picks (``tempfile.mkstemp`` does the same, and costs a
        # no-change run's fresh process ~4 ms to load).
        name = str(path.parent / f".{path.name}.{os.getpid()}.{time.monotonic_ns()}")
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        tmp = name  # ours to remove from here on
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(asdict(outcome), fh)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def read_outcome(db_path: Path) -> RunOutcome | None:
    try:
        data = json.loads(outcome_path(db_path).read_text(encoding="utf-8"))
        return RunOutcome(**{k: data[k] for k in RunOutcome.__dataclass_fields__ if k in data})
    except (OSError, ValueError, TypeError, KeyError):
        return None

"""Bringing the index up to date in the background, as the Stop and SessionEnd hooks ask.

``start_refresh`` starts ``python -m indexer.agents.refresh`` detached and returns at once;
Stop fires after every turn, so after a Stop it starts at most every ``STOP_REFRESH_INTERVAL``
seconds (SessionEnd always starts one). The run itself is ``threadback index -q`` without the
command line: quiet, and a run already in progress is simply left to finish.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from indexer.config import ConfigError, data_dir, load_roots
from indexer.index import Index
from indexer.ingest.outcome import RunOutcome, record_outcome
from indexer.store.errors import IndexError_

STOP_REFRESH_INTERVAL = 20.0
REFRESH_STAMP = ".hook-refresh"


def start_refresh(db_path: Path, now: float, *, after_every_turn: bool) -> bool:
    """Start a detached index run unless one started within the interval (``after_every_turn``:
    the Stop event). True when one was started."""
    stamp = data_dir() / REFRESH_STAMP
    if after_every_turn:
        try:
            if now - stamp.stat().st_mtime < STOP_REFRESH_INTERVAL:
                return False
        except FileNotFoundError:
            pass
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()
    import subprocess  # here: the refresh process this starts never needs it (~4 ms of each)

    subprocess.Popen(
        [sys.executable, "-m", "indexer.agents.refresh", str(db_path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
        cwd=str(Path(__file__).resolve().parents[2]),  # where the package is, when not installed
    )
    return True


def refresh(db_path: Path) -> int:
    """One quiet index run over the configured log folders; 0 when it ran, 1 when it could not.
    Nobody sees it: how it ended is left beside the index (``Index.last_run``) for the app's
    status line and ``threadback index``."""
    try:
        with Index(db_path) as index:
            index.update(load_roots(), where="hook")  # records its own outcome
    except IndexError_:
        return 1
    except Exception as exc:  # noqa: BLE001 - a config error, a disk error, a bug: say so where it is seen
        message = " ".join(f"{type(exc).__name__}: {exc}".split()) if not isinstance(exc, ConfigError) else str(exc)
        record_outcome(db_path, RunOutcome(time.time(), False, message, where="hook"))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(refresh(Path(sys.argv[1])))

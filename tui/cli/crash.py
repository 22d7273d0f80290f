"""The last resort: an error no command expected becomes one line and a saved trace, never a
traceback on the user's terminal (``THREADBACK_DEBUG=1`` prints the trace as well).

Errors of the machine rather than of Threadback get their own exit code and no trace: a full
disk (7) and a read-only place (6), wherever they happen (an index run, ``memory add``,
``rules propose``...).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

from indexer import errors
from indexer.errors import kind_of
from tui.cli.exits import DISK_FULL, INTERNAL, READ_ONLY


def report_unexpected(exc: BaseException) -> int:
    """Say what happened in one line on stderr; the exit code for it."""
    if isinstance(exc, OSError):
        kind = kind_of(exc)
        if kind == errors.DISK_FULL:
            where = f" writing {exc.filename}" if exc.filename else ""
            _say(f"the disk is full{where}; nothing was half-written: free some space and try again")
            return DISK_FULL
        if kind == errors.READ_ONLY:
            where = f" {exc.filename}" if exc.filename else ""
            _say(f"cannot write{where}: {exc.strerror or exc} (read-only disk or no permission)")
            return READ_ONLY
    trace = "".join(traceback.format_exception(exc))
    if os.environ.get("THREADBACK_DEBUG"):
        sys.stderr.write(trace)
    saved = save_trace(trace)
    summary = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    where = f"the full trace is in {saved}" if saved else "the trace could not be saved"
    _say(f"unexpected error ({summary}); {where}. Please report it with that file.")
    return INTERNAL


def save_trace(trace: str) -> Path | None:
    """Write ``trace`` to a new file under the data dir (or the temp dir); its path, or None."""
    from indexer.config import data_dir

    name = time.strftime("error-%Y%m%dT%H%M%S", time.gmtime()) + f"-{os.getpid()}.txt"
    header = f"threadback {' '.join(sys.argv[1:])!r}\n{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n\n"
    for folder in (data_dir() / "errors", Path(tempfile.gettempdir()) / "threadback-errors"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / name
            path.write_text(header + trace, encoding="utf-8", errors="backslashreplace")
            return path
        except OSError:
            continue
    return None


def _say(message: str) -> None:
    try:
        print(f"threadback: {message}", file=sys.stderr)
    except Exception:  # noqa: BLE001 - stderr itself is gone: nothing left to tell
        pass

"""Copying logs the index read before the archive kept them (an index from before schema 6, or
the archive switched on later) into the archive, once: the agent may delete them any day."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Callable


def backfill_archive(conn: sqlite3.Connection, archive_dir: Path, problems: list[str],
                     should_stop: Callable[[], bool] | None = None) -> int:
    """Archive every log on disk the index holds without a copy, up to what was indexed of it.
    Returns how many were copied; a log that cannot be read is left for the next run."""
    rows = conn.execute("SELECT id, path, offset FROM files WHERE archived = 0 AND missing = 0 AND offset > 0").fetchall()
    if not rows:
        return 0  # the usual case: the archive's code is not loaded
    from indexer.archive import archive_read_bytes

    copied = 0
    for file_id, path, offset in rows:
        if should_stop and should_stop():
            break
        try:
            with open(path, "rb") as fh:
                data = fh.read(offset)
        except OSError:
            continue  # gone or unreadable now: the index run notes it in its own way
        if len(data) != offset:
            continue  # shrunk since it was indexed: the next read of it archives it
        outcome = archive_read_bytes(archive_dir, path, path, 0, data)
        if outcome.problem:
            problems.append(outcome.problem)
            continue
        conn.execute("BEGIN")
        # A new hard link moved the log's change time: kept, or the next run reads the log again.
        conn.execute("UPDATE files SET archived = 1, ctime_ns = coalesce(?, ctime_ns) WHERE id = ?",
                     (outcome.ctime_ns, file_id))
        conn.execute("COMMIT")
        copied += 1
    return copied

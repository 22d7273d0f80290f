"""Log files that could not be stored: one file's failure never stops a run.

Anything raised while storing one file rolls back that file only (a savepoint per file); the
file is then recorded in the ``failures`` table as it was on disk (size, times, inode), skipped
by later runs while it stays that way, and counted in every summary ("2 files still failing,
see `threadback index --problems`"). When it changes it is tried again; when it is stored, or
gone, its record goes.

What is not one file's fault (a full disk, a damaged or read-only index, a lock) stops the run
instead: it would fail every file the same way.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass

# Raised by one file's content: its text, its numbers, its shape. Nothing else is per file.
PER_FILE_ERRORS: tuple[type[BaseException], ...] = (
    UnicodeError,
    ValueError,
    TypeError,
    OverflowError,
    RecursionError,
    KeyError,
    IndexError,
    AttributeError,
    sqlite3.IntegrityError,
    sqlite3.InterfaceError,
    sqlite3.DataError,
    sqlite3.ProgrammingError,
)
# An OperationalError about one value (a string or blob over SQLite's limit) is one file's too.
_PER_FILE_SQLITE_WORDS = ("too big", "too many", "too large")


def is_per_file(exc: BaseException) -> bool:
    """Whether ``exc`` is about the file being stored rather than about the index or the disk."""
    if isinstance(exc, sqlite3.OperationalError):
        return any(word in str(exc).lower() for word in _PER_FILE_SQLITE_WORDS)
    if isinstance(exc, sqlite3.DatabaseError):
        return isinstance(exc, PER_FILE_ERRORS)
    return isinstance(exc, PER_FILE_ERRORS)


@dataclass(frozen=True)
class FailedFile:
    """A log file that failed, as it was then; shown by ``threadback index --problems``."""

    path: str
    agent: str
    line: int
    reason: str
    failed_at: float

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


StatKey = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode


def stat_key(st: os.stat_result) -> StatKey:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def load_failures(conn: sqlite3.Connection) -> dict[str, StatKey]:
    """Each failed file's stat when it failed, by stored path."""
    return {r[0]: tuple(r[1:]) for r in conn.execute("SELECT path, size, mtime_ns, ctime_ns, inode FROM failures")}


def record_failure(conn: sqlite3.Connection, agent: str, key: str, st: StatKey, line: int, reason: str, now: float) -> None:
    conn.execute(
        "INSERT INTO failures(path, agent, size, mtime_ns, ctime_ns, inode, line, reason, failed_at)"
        " VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT(path) DO UPDATE SET agent = excluded.agent,"
        " size = excluded.size, mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns,"
        " inode = excluded.inode, line = excluded.line, reason = excluded.reason, failed_at = excluded.failed_at",
        (key, agent, *st, line, reason, now),
    )


def clear_failure(conn: sqlite3.Connection, key: str) -> None:
    conn.execute("DELETE FROM failures WHERE path = ?", (key,))


def failed_files(conn: sqlite3.Connection) -> list[FailedFile]:
    """Every file still failing, most recent first."""
    return [
        FailedFile(*r)
        for r in conn.execute("SELECT path, agent, line, reason, failed_at FROM failures ORDER BY failed_at DESC, path")
    ]


def failing_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM failures").fetchone()[0])


def reason_of(exc: BaseException) -> str:
    """One line: the error's type and message."""
    text = " ".join(str(exc).split()) or "no message"
    return f"{type(exc).__name__}: {text[:300]}"

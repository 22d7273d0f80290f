"""The one root of every error the core raises, and the kinds a person or a script can act on.

Each error class says what kind of failure it is (``kind``); the CLI turns a kind into an exit
code in one table (``tui/cli/exits.py``) and the app into a notification's severity in one
place (``tui/worker_errors.py``). A new error is a subclass here or beside the code that raises
it, with its kind; it also derives from the builtin its callers catch (``ValueError``,
``LookupError``, ``OSError``...), so code that caught it before still does.

Adding a kind: a constant here, a row in ``EXIT_CODES`` (``tui/cli/exits.py``) and in
``SEVERITIES`` (``tui/worker_errors.py``); ``tests/project/test_errors.py`` checks all three.
"""

from __future__ import annotations

import errno

USAGE = "usage"  # the person asked for something malformed: a query, a flag, a config file
NOT_FOUND = "not found"  # a session, memory entry, rule or archived copy that is not there
INDEX = "index"  # the index is missing, damaged, too old or too new to use
BUSY = "busy"  # locked by another run, or changed on disk meanwhile: try again
READ_ONLY = "read-only"  # the disk or the file cannot be written
DISK_FULL = "disk full"
REFUSED = "refused"  # not allowed from here (needs a person at a terminal, an allowed folder...)
INTERNAL = "internal"  # a bug: the code used something the wrong way

KINDS = (USAGE, NOT_FOUND, INDEX, BUSY, READ_ONLY, DISK_FULL, REFUSED, INTERNAL)


class ThreadbackError(Exception):
    """Base of every error raised by ``indexer``; ``kind`` says what a person can do about it."""

    kind: str = INTERNAL


# errors of the machine rather than of Threadback
_DISK_FULL_ERRNO = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_READ_ONLY_ERRNO = (errno.EROFS, errno.EACCES, errno.EPERM)


def kind_of(exc: BaseException) -> str | None:
    """The kind of an error a command or the app may end with; None for one that is a bug.
    An ``OSError`` counts too: a full disk, a place that cannot be written, or else refused."""
    if isinstance(exc, ThreadbackError):
        return exc.kind
    if isinstance(exc, OSError) and exc.errno is not None:
        if exc.errno in _DISK_FULL_ERRNO:
            return DISK_FULL
        return READ_ONLY if exc.errno in _READ_ONLY_ERRNO else REFUSED
    return None

"""Exit codes a script can rely on, and the one way a command's error becomes one.

  0 success; 1 nothing found; 2 bad usage or query; 3 index missing, damaged or not usable;
  4 not found (session, memory, rule); 5 refused (e.g. needs a terminal); 6 cannot write (a
  read-only disk or file); 7 the disk is full; 70 unexpected error (one line, the trace saved
  to a file, see ``tui.cli.crash``); 75 busy, locked or changed meanwhile (try again);
  130 interrupted.

A command raises; ``command(...)`` turns what it raised into one ``threadback: ...`` line on
stderr and the exit code its group maps that error to (a config file that cannot be used is
bad usage, 2, for every command). Nothing else prints an error.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

from indexer.config import ConfigError
from indexer.util.named_record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:  # argparse is loaded only to build the full parser (``tui.cli.parser``)
    import argparse

OK = 0
NOTHING_FOUND = 1
USAGE = 2
INDEX = 3
NOT_FOUND = 4
REFUSED = 5
READ_ONLY = 6
DISK_FULL = 7
INTERNAL = 70
BUSY = 75
INTERRUPTED = 130

Handler = Callable[["argparse.Namespace"], int]


class CommandError(Exception):
    """A command stops with this message and exit code (usage it checked itself, a missing index)."""

    def __init__(self, message: str, code: int = USAGE):
        super().__init__(message)
        self.code = code


class ErrorExit(NamedTuple):
    """An error a command group expects: which exit code it gets, and what to add to its message."""

    error: type[BaseException]
    code: int
    note: str = ""


def say(prefix: str, message: object) -> None:
    print(f"{prefix}: {message}", file=sys.stderr)


def command(*expected: ErrorExit, prefix: str = "threadback") -> Callable[[Handler], Handler]:
    """Wrap a command: ``CommandError`` and the ``expected`` errors (first match wins, so list a
    subclass before its base) become one stderr line and their exit code; a command that
    returns nothing succeeded."""

    def wrap(fn: Handler) -> Handler:
        @functools.wraps(fn)
        def run(args: "argparse.Namespace") -> int:
            try:
                return int(fn(args) or OK)
            except CommandError as exc:
                say(prefix, exc)
                return exc.code
            except ConfigError as exc:
                say(prefix, exc)
                return USAGE
            except tuple(e.error for e in expected) as exc:
                rule = next(e for e in expected if isinstance(exc, e.error))
                say(prefix, f"{exc}{rule.note}")
                return rule.code

        return run

    return wrap

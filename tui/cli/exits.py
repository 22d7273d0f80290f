"""Exit codes a script can rely on, and the one way a command's error becomes one.

  0 success; 1 nothing found; 2 bad usage or query; 3 index missing, damaged or not usable;
  4 not found (session, memory, rule); 5 refused (e.g. needs a terminal); 6 cannot write (a
  read-only disk or file); 7 the disk is full; 70 unexpected error (one line, the trace saved
  to a file, see ``tui.cli.crash``); 75 busy, locked or changed meanwhile (try again);
  130 interrupted.

A command raises; ``command(...)`` turns what it raised into one ``threadback: ...`` line on
stderr and an exit code. Every error of the core is a ``ThreadbackError`` with a kind
(``indexer.errors``), and ``EXIT_CODES`` below is the one table from kind to code; an
``OSError`` of the disk (full, read-only, no permission) gets the code of its kind too.
Anything else is a bug and takes the last-resort path (``tui.cli.crash``). Nothing else prints
an error.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

from indexer import errors
from indexer.errors import ThreadbackError, kind_of

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


# The one table from an error's kind to the exit code a script sees.
EXIT_CODES = {
    errors.USAGE: USAGE,
    errors.NOT_FOUND: NOT_FOUND,
    errors.INDEX: INDEX,
    errors.BUSY: BUSY,
    errors.READ_ONLY: READ_ONLY,
    errors.DISK_FULL: DISK_FULL,
    errors.REFUSED: REFUSED,
    errors.INTERNAL: INTERNAL,
}
def exit_code_for(exc: BaseException) -> int | None:
    kind = kind_of(exc)
    return None if kind is None else EXIT_CODES[kind]


def say(prefix: str, message: object) -> None:
    print(f"{prefix}: {message}", file=sys.stderr)


def command(*, prefix: str = "threadback",
            notes: dict[type[BaseException], str] | None = None) -> Callable[[Handler], Handler]:
    """Wrap a command: ``CommandError`` and every error with a kind become one stderr line and
    their exit code (``notes`` adds what the group knows to an error's message, e.g. that
    nothing was written); a command that returns nothing succeeded."""

    def wrap(fn: Handler) -> Handler:
        @functools.wraps(fn)
        def run(args: "argparse.Namespace") -> int:
            try:
                return int(fn(args) or OK)
            except CommandError as exc:
                say(prefix, exc)
                return exc.code
            except (ThreadbackError, OSError) as exc:
                kind = kind_of(exc)
                if kind is None or (not isinstance(exc, ThreadbackError) and kind != errors.REFUSED):
                    raise  # a bug, or the machine's disk: the last resort words those (tui.cli.crash)
                note = next((n for cls, n in (notes or {}).items() if isinstance(exc, cls)), "")
                say(prefix, f"{exc}{note}")
                return EXIT_CODES[kind]

        return run

    return wrap

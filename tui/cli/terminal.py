"""Plain-terminal output for the CLI: optional colour, and log text made safe to print.

Log text is untrusted: an escape sequence in a tool result must not move the cursor or
retitle the terminal of the person reading it, and a bidi override must not reorder what
they read, so such characters are shown, not sent.
"""

from __future__ import annotations

import os
import sys

from indexer.text.safe import make_visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, TextIO


def safe_text(text: str) -> str:
    """``text`` with control, escape, zero-width and bidi characters made visible (the same
    rule the app uses); newlines and tabs are kept for the terminal's own layout."""
    return make_visible(text, tab="\t")


class VisibleWriter:
    """A text stream that passes everything written through ``safe_text``: for commands whose
    every line holds untrusted text and no styling of ours (the memory commands)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(safe_text(text))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


class visible_output:  # noqa: N801 - a context manager, ``with visible_output():``
    """stdout and stderr made safe for the duration (JSON from ``output.dumps`` passes through
    unchanged: it holds no such character raw). A class, not ``@contextmanager``: a search loads
    this module, and ``contextlib`` is ~0.5 ms."""

    def __enter__(self) -> None:
        self._saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = VisibleWriter(self._saved[0]), VisibleWriter(self._saved[1])

    def __exit__(self, *exc_info: object) -> None:
        sys.stdout, sys.stderr = self._saved


class Style:
    """ANSI styling that turns itself off for pipes and ``NO_COLOR``."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    @classmethod
    def for_stream(cls, stream: TextIO) -> "Style":
        return cls(stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb")

    def _wrap(self, code: str) -> Callable[[str], str]:
        def apply(text: str) -> str:
            return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

        return apply

    @property
    def bold(self):
        return self._wrap("1")

    @property
    def dim(self):
        return self._wrap("2")

    @property
    def user(self):
        return self._wrap("1;36")

    @property
    def assistant(self):
        return self._wrap("1;32")

    @property
    def tool(self):
        return self._wrap("33")

    def mark(self, text: str) -> str:
        """A search match: reverse-yellow on a terminal, «guillemets» in a pipe."""
        return f"\x1b[1;30;43m{text}\x1b[0m" if self.enabled else f"«{text}»"

"""Plain-terminal output for the CLI: optional colour, and log text made safe to print.

Log text is untrusted: an escape sequence in a tool result must not move the cursor or
retitle the terminal of the person reading it, so control characters are shown, not sent.
"""

from __future__ import annotations

import os
import re
from typing import Callable, TextIO

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(match: re.Match) -> str:
    ch = match.group(0)
    code = ord(ch)
    if code == 0x1B:
        return "␛"
    if code < 0x20:
        return "^" + chr(code + 0x40)
    return f"\\x{code:02x}"


def safe_text(text: str) -> str:
    """``text`` with every control character except newline and tab made visible."""
    return _CONTROL.sub(_visible, text)


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

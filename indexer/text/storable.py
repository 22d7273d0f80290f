"""Text as valid UTF-8, for whatever must store or send it (SQLite, a hook's JSON, an agent's
context): a lone surrogate (``"\\ud83d"`` in a log: an emoji cut in half; an undecodable byte
of a file name or an argument) becomes U+FFFD, and a file name its undecodable bytes as
``\\xNN`` (so two such names never become one). Valid text passes through untouched and
almost free.
"""

from __future__ import annotations

import os

REPLACEMENT = "\ufffd"


def storable(text: str) -> str:
    """``text`` as valid UTF-8: lone surrogates become U+FFFD, valid pairs are joined."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        # UTF-16 with surrogatepass joins a valid high+low pair into one character; what is
        # left alone is replaced on the way back.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def storable_or_none(text: str | None) -> str | None:
    return None if text is None else storable(text)


def storable_path(path: str) -> str:
    """A file name as stored and shown: bytes that are not UTF-8 written as ``\\xNN``."""
    if path.isascii():
        return path
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return storable(os.fsencode(path).decode("utf-8", "backslashreplace"))

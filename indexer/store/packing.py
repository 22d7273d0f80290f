"""Compact storage for text nobody searches: tool results and tool-call arguments.

They are most of a log's bytes but are only shown in transcripts, so they are stored
zlib-compressed (as a BLOB in the same column) when that saves space. Indexed text is never
packed: the FTS table reads it straight from ``messages.text``.
"""

from __future__ import annotations

import zlib

PACK_MIN_CHARS = 256


def pack(text: str | None) -> str | bytes | None:
    if text is None or len(text) < PACK_MIN_CHARS:
        return text
    return zlib.compress(text.encode("utf-8", "surrogatepass"), 1)


def unpack(value: str | bytes | None) -> str | None:
    if isinstance(value, bytes):
        return zlib.decompress(value).decode("utf-8", "replace")
    return value

"""Tool output kept as a reference into its log rather than as a copy (issue 18's size target).

Tool output is most of what an index stores and nobody searches it; the archive
(``indexer.archive``) keeps every log it came from anyway. So where the stored text can be
rebuilt exactly from one JSON string in the log, ``messages.text`` holds only a reference:

- the string's place in the log (offset and length of the literal, quotes included) and a
  CRC-32 of those bytes, so a log changed since it was indexed is noticed, never shown wrongly
  (a checksum, not a hash: it guards against a log that changed, not against one built to
  collide, and any text a log holds is shown as its own anyway);
- ``nested``: the string is itself a JSON object whose ``"output"`` is the text (Codex);
- ``args``: the literal is a JSON value (a tool call's arguments) and the text is its
  decoding rendered by ``indexer.tool_args.to_json``; with ``nested``, the literal is a string
  holding that JSON (Codex's ``"arguments"``);
- ``head`` / ``tail``: the text is the string cut to its head and tail (``indexer.text.clip``);
  0 / 0: not cut;
- ``prefix``: text put before it (``"[error] "``).

A reference is made only where rebuilding it gave back the very text parsed
(``indexer.ingest.log_refs``, ``indexer.ingest.args_refs``), and read back by ``indexer.store.log_ref_reader``. Stored as a
BLOB starting ``TBR\\x01``: told apart from zlib (0x78) and zstd (28 B5 2F FD) packed text.
"""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass
from typing import Any

import orjson

from indexer.store.packing import LOG_REF_MAGIC as MAGIC
from indexer.text.clip import cut_middle
from indexer.tool_args import to_json

_FIELDS = struct.Struct("<QIIBII")  # offset, length, digest, flags, head, tail; then the prefix
_NESTED = 1
_ARGS = 2


def literal_digest(raw: bytes) -> int:
    return zlib.crc32(raw)


def is_log_ref(value: object) -> bool:
    return isinstance(value, bytes) and value[:4] == MAGIC


def _json_value(literal: bytes | str) -> Any:
    """A JSON value read as the parsers read their lines: by orjson (a 77 KB output's literal
    in 77 us against the stdlib's 177; a cut output's whole literal is read to rebuild it),
    and by the stdlib where orjson refuses (a lone surrogate's escape, ``NaN``), as the
    parsers fall back to it (``indexer.sources.base``): the same text either way."""
    try:
        return orjson.loads(literal)
    except orjson.JSONDecodeError:
        return json.loads(literal)


@dataclass(frozen=True)
class LogRef:
    offset: int  # of the JSON string literal in the log, in bytes
    length: int  # of the literal, quotes included
    digest: int  # ``literal_digest`` of the literal's bytes
    nested: bool = False
    head: int = 0
    tail: int = 0
    prefix: str = ""
    args: bool = False

    def encode(self) -> bytes:
        flags = (_NESTED if self.nested else 0) | (_ARGS if self.args else 0)
        fields = _FIELDS.pack(self.offset, self.length, self.digest, flags, self.head, self.tail)
        return MAGIC + fields + self.prefix.encode("utf-8", "surrogatepass")

    @classmethod
    def decode(cls, value: bytes) -> LogRef | None:
        """The reference a stored value holds; None when it is not one or is damaged."""
        if not is_log_ref(value) or len(value) < len(MAGIC) + _FIELDS.size:
            return None
        offset, length, digest, flags, head, tail = _FIELDS.unpack_from(value, len(MAGIC))
        try:
            prefix = value[len(MAGIC) + _FIELDS.size:].decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return None
        return cls(offset, length, digest, bool(flags & _NESTED), head, tail, prefix, bool(flags & _ARGS))

    def rebuild(self, raw: bytes) -> str | None:
        """The stored text from the literal's bytes as read from the log; None when they are
        not the bytes it was made from (the log changed) or do not decode."""
        if len(raw) != self.length or literal_digest(raw) != self.digest:
            return None
        return self.rebuild_unchecked(raw)

    def rebuild_unchecked(self, raw: bytes) -> str | None:
        """``rebuild`` for bytes known to be the literal's (just found, digest just taken)."""
        if self.args:
            return self._arguments(raw)
        try:
            text = _json_value(raw)
            if self.nested:
                text = _json_value(text).get("output") if isinstance(text, str) else None
        except (ValueError, AttributeError, RecursionError):
            return None
        if not isinstance(text, str):
            return None
        if self.head or self.tail:
            text = cut_middle(text, self.head, self.tail)
        return self.prefix + text

    def _arguments(self, raw: bytes) -> str | None:
        """A tool call's arguments (``args``) rendered from their literal."""
        try:
            value = _json_value(raw)
            if self.nested:
                if not isinstance(value, str):
                    return None
                value = _json_value(value)
        except (ValueError, RecursionError):
            return None
        return to_json(value)

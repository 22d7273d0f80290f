"""Finding the JSON string a tool output came from, so the index keeps a reference to it
(``indexer.store.log_ref``) instead of a packed copy.

The parser says which line a message came from (``ParsedMessage.span``); the output's first
characters, escaped as JSON, find its string in that line, once escaped (a Claude or Pi tool
result) or twice (a Codex output wrapped in ``{"output": ...}``). The reference is kept only
when rebuilding the text from those bytes gives back exactly the text parsed: anything else
(several blocks joined, text the parser changed) is packed as before. Runs where the rows are
made, in the helper process on big runs.
"""

from __future__ import annotations

import json
from _json import scanstring  # what json.decoder.scanstring is on CPython, typed there

import orjson

from indexer.store.log_ref import LogRef, literal_digest
from indexer.text.clip import CUT_MARKER

PREFIXES = ("[error] ",)  # put before a tool's output by the parsers (a failed call)
NEEDLE_CHARS = 48  # of the output's start, looked for in its line
MAX_TRIES = 4  # places in one line tried for one output (Claude logs an output twice)


def _escaped(text: str, ascii_only: bool = False) -> str:
    """``text`` as it reads inside a JSON string: written as every agent writes it, or with
    everything beyond ASCII escaped (``ascii_only``: Python's default, a log saved by a script)."""
    return json.dumps(text, ensure_ascii=ascii_only)[1:-1]


def _literal(text: str) -> bytes:
    """``text`` as a JSON string literal in UTF-8, written as every agent writes it. orjson
    writes every character as ``json.dumps(ensure_ascii=False)`` does (checked for each code
    point), in one pass straight to bytes (7,763 outputs' literals 0.153 -> 0.115 s); a lone
    surrogate, which it refuses, goes the stdlib's way."""
    try:
        return orjson.dumps(text)
    except TypeError:
        return json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")


def reference_for(text: str, chunk: bytes, span: tuple[int, int], chunk_offset: int) -> bytes | None:
    """The encoded reference for ``text`` parsed from ``chunk[span]`` (``chunk`` starts at
    ``chunk_offset`` in the log), or None when no string in that line rebuilds it exactly."""
    prefix = next((p for p in PREFIXES if text.startswith(p)), "")
    body = text[len(prefix):]
    cut = CUT_MARKER.search(body)
    head, tail = (cut.start(), len(body) - cut.end()) if cut else (0, 0)
    found = _written_as_we_would(text, body, prefix, head, tail, chunk, span)
    if found is None:
        found = _scanned(text, body, prefix, head, tail, chunk, span)
    if found is None:
        return None
    at, ref = found
    return LogRef(chunk_offset + at, ref.length, ref.digest, ref.nested, ref.head, ref.tail, ref.prefix).encode()


def _written_as_we_would(text: str, body: str, prefix: str, head: int, tail: int, chunk: bytes,
                         span: tuple[int, int]) -> tuple[int, LogRef] | None:
    """The common case, found without decoding the line: the string is written as Python's
    encoder writes it. Whole, its bytes are then the text's own encoding (nothing to check);
    cut, its first and last characters are found and the rebuilt text checked."""
    if not head and not tail:
        literal = _literal(body)
        at = chunk.find(literal, span[0], span[1])
        return None if at < 0 else (at, LogRef(0, len(literal), literal_digest(literal), prefix=prefix))
    opening = _literal(body[:head])[:-1]  # the literal's quotes: its opening one kept
    closing = _literal(body[len(body) - tail:])[1:]
    at = chunk.find(opening, span[0], span[1])
    end = chunk.find(closing, at + len(opening), span[1]) if at >= 0 else -1
    if end < 0:
        return None
    raw = chunk[at:end + len(closing)]
    ref = LogRef(0, len(raw), literal_digest(raw), False, head, tail, prefix)
    return (at, ref) if ref.rebuild_unchecked(raw) == text else None


def _scanned(text: str, body: str, prefix: str, head: int, tail: int, chunk: bytes,
             span: tuple[int, int]) -> tuple[int, LogRef] | None:
    """Any other writing (escapes beyond ASCII, a Codex output wrapped in ``{"output": ...}``):
    the line decoded, each string the output's start is found in read whole and checked."""
    start_of_body = body[:min(NEEDLE_CHARS, head or NEEDLE_CHARS)]
    if not start_of_body:
        return None
    line_bytes = chunk[span[0]:span[1]]
    line = line_bytes.decode("utf-8", "surrogateescape")  # one char per undecodable byte
    recipes = [LogRef(0, 0, 0, nested, *cut, prefix)
               for nested in (False, True)
               for cut in (((head, tail), (0, 0)) if head or tail else ((0, 0),))]  # a marker may be the output's own
    for needle in dict.fromkeys(_escaped(start_of_body, ascii_only) for ascii_only in (False, True)):
        for nested, find in ((False, '"' + needle), (True, _escaped(needle))):
            at = line.find(find)
            for _ in range(MAX_TRIES):
                if at < 0:
                    break
                found = _literal_at(line, line_bytes, _opening_quote(line, at) if nested else at)
                ref = _rebuilding(text, found, [r for r in recipes if r.nested == nested])
                if ref is not None and found is not None:
                    return span[0] + found[0], ref
                at = line.find(find, at + 1)
    return None


def _rebuilding(text: str, found: tuple[int, bytes] | None, recipes: list[LogRef]) -> LogRef | None:
    """The first recipe that rebuilds ``text`` from the literal found, as a reference to it."""
    if found is None:
        return None
    raw = found[1]
    digest = literal_digest(raw)
    for recipe in recipes:
        ref = LogRef(0, len(raw), digest, recipe.nested, recipe.head, recipe.tail, recipe.prefix)
        if ref.rebuild_unchecked(raw) == text:
            return ref
    return None


def _literal_at(line: str, line_bytes: bytes, start: int) -> tuple[int, bytes] | None:
    """(byte offset in the line, bytes) of the JSON string literal opening at ``line[start]``."""
    if start < 0:
        return None
    try:
        _, end = scanstring(line, start + 1)
    except ValueError:
        return None
    if len(line_bytes) == len(line):  # ASCII: characters are bytes
        return start, line_bytes[start:end]
    byte_start = len(line[:start].encode("utf-8", "surrogateescape"))
    byte_end = byte_start + len(line[start:end].encode("utf-8", "surrogateescape"))
    return byte_start, line_bytes[byte_start:byte_end]


def _opening_quote(line: str, inside: int) -> int:
    """The quote opening the JSON string that ``line[inside]`` is in: the nearest one before
    it not escaped by a backslash (-1: none)."""
    quote = line.rfind('"', 0, inside)
    while quote >= 0:
        backslashes = 0
        while quote - backslashes > 0 and line[quote - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return quote
        quote = line.rfind('"', 0, quote)
    return -1

"""Finding the JSON value a tool call's arguments came from, so the index keeps a reference to
it (``indexer.store.log_ref``, its ``args`` recipe) instead of a packed copy.

The stored arguments are the parsed value rendered by ``indexer.tool_args.to_json``; the agents
write that value compactly (Claude Code and Pi as JavaScript does, Codex as a string holding
the JSON). So the value is written again in the few ways a log writes it, each looked for in
the message's line, and the reference kept only when rebuilding from the bytes found gives back
exactly the stored arguments. Anything else (a value the parser changed, numbers or escapes
written another way) stays packed as before. Runs where the rows are made.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import orjson

from indexer.store.log_ref import LogRef, literal_digest

# How a log may write a value: compact (JavaScript, Rust), or with Python's default spaces;
# characters beyond ASCII as they are, or escaped.
_WRITINGS = ((",", ":"), (", ", ": "))


def args_reference_for(detail: str, chunk: bytes, span: tuple[int, int], chunk_offset: int) -> bytes | None:
    """The encoded reference for the arguments ``detail`` parsed from ``chunk[span]`` (``chunk``
    starts at ``chunk_offset`` in the log), or None when no bytes in that line rebuild it."""
    try:
        # orjson reads what the stdlib reads, but ints beyond 64 bits (floats to it: the literal
        # written from them is then not found, as the stdlib's would not rebuild ``detail``);
        # what it refuses (NaN, a lone surrogate) goes to the stdlib. Either way the reference
        # is kept only when it rebuilds ``detail`` exactly, below.
        value = orjson.loads(detail)
    except orjson.JSONDecodeError:
        try:
            value = json.loads(detail)
        except (ValueError, RecursionError):
            return None  # not JSON: the parser's note that the arguments were too deep to show
    for literal, nested in _written(value):
        at = chunk.find(literal, span[0], span[1])
        if at < 0:
            continue
        ref = LogRef(chunk_offset + at, len(literal), literal_digest(literal), nested, args=True)
        if ref.rebuild_unchecked(literal) == detail:
            return ref.encode()
    return None


def _written(value: object) -> Iterator[tuple[bytes, bool]]:
    """(bytes, nested) for each way a log may hold ``value``: as a JSON value, then as a JSON
    string holding it (``nested``)."""
    seen: set[bytes] = set()
    for nested in (False, True):
        for separators in _WRITINGS:
            for ascii_only in (False, True):
                try:
                    text = json.dumps(value, ensure_ascii=ascii_only, separators=separators)
                    if nested:
                        text = json.dumps(text, ensure_ascii=ascii_only)
                except (ValueError, RecursionError):
                    continue
                literal = text.encode("utf-8", "surrogatepass")
                if literal not in seen:
                    seen.add(literal)
                    yield literal, nested

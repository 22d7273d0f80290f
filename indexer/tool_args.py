"""A tool call's arguments as the index shows them (the expand action, exports).

Frozen in its output, like ``indexer.text.clip``: arguments kept as a reference into their log
(``indexer.store.log_ref``) are rendered again with this function each time they are read, so a
change here would change how every stored reference reads; a new rendering needs a new flag.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_MAX_DEPTH = 200  # orjson's own limit is 254 levels; deeper goes to the stdlib, which says why


def to_json(value: object) -> str:
    """Indented JSON, characters beyond ASCII as they are."""
    if _orjson_exact(value, 0):
        try:
            return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8")
        except (TypeError, ValueError):  # an int beyond 64 bits, a lone surrogate: the stdlib writes them
            pass
    try:
        return json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError, RecursionError):
        return "(arguments too deeply nested to show)"


def _orjson_exact(value: Any, depth: int) -> bool:
    """Whether orjson writes ``value`` byte for byte as ``json.dumps(indent=2)`` does (measured
    over generated values): everything parsed JSON holds but floats (orjson writes ``1e-05`` as
    ``0.00001``), so a value holding one takes the stdlib's path. Ten times faster when it can:
    the stdlib's indented encoder is pure Python."""
    if isinstance(value, dict):
        return depth < _MAX_DEPTH and all(type(k) is str and _orjson_exact(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return depth < _MAX_DEPTH and all(_orjson_exact(v, depth + 1) for v in value)
    return value is None or type(value) in (str, int, bool)

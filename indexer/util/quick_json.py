"""JSON in and out with the C accelerator the ``json`` package itself runs, without loading it.

``import json`` costs ~1.4 ms a process (it compiles six patterns and builds two classes). A
search that prints ``--json`` and every hook (which reads the agent's event and writes its
answer) pay it once a command, on the path an agent calls many times a session. CPython's
``_json`` holds the encoder and the scanner that ``json.dumps`` and ``json.loads`` call for the
cases used here; this module calls them the same way:

- ``dumps``: ``json.dumps(obj, ensure_ascii=False)`` (``default`` as there), with its separators;
- ``loads``: ``json.loads(text)`` for a ``str``.

Where ``_json`` is missing or has another signature (another interpreter), both fall back to
the ``json`` package; ``tests/core/util/test_quick_json.py`` holds them equal to it on random values.
Errors are ``json``'s own (``json.JSONDecodeError``, ``TypeError``, ``ValueError``): they are
rare, so only they load it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WHITESPACE = " \t\n\r"


def _not_serializable(obj: object) -> object:
    raise TypeError(f"Object of type {obj.__class__.__name__} is not JSON serializable")


def dumps(obj: Any, *, default: Callable[[Any], Any] | None = None) -> str:
    """``json.dumps(obj, ensure_ascii=False, default=default)``."""
    try:
        from _json import encode_basestring, make_encoder

        # json.encoder.JSONEncoder.iterencode's call, for indent=None and the default options.
        encode = make_encoder({}, default or _not_serializable, encode_basestring, None, ": ", ", ",
                              False, False, True)
    except (ImportError, TypeError):
        import json

        return json.dumps(obj, ensure_ascii=False, default=default)
    return "".join(encode(obj, 0))


class _Options:
    """What ``_json.make_scanner`` reads from ``json.JSONDecoder``: its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


_scan_once: Any = None


def loads(text: str) -> Any:
    """``json.loads(text)``: the value, or ``json.JSONDecodeError`` (a ``ValueError``)."""
    global _scan_once
    if _scan_once is None:
        try:
            from _json import make_scanner

            # make_scanner reads a JSONDecoder's attributes, typed as one; _Options has the ones it
            # reads (loading json.decoder to build a real one is what this module avoids)
            _scan_once = make_scanner(_Options())  # type: ignore[arg-type]
        except (ImportError, TypeError):
            _scan_once = False
    if _scan_once is False or not isinstance(text, str) or text.startswith("\ufeff"):
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan_once(text, start)
    except StopIteration as stop:
        from json import JSONDecodeError

        raise JSONDecodeError("Expecting value", text, stop.value) from None
    rest = len(text) - len(text[end:].lstrip(_WHITESPACE))
    if rest != len(text):
        from json import JSONDecodeError

        raise JSONDecodeError("Extra data", text, rest)
    return value

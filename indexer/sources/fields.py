"""Reading a field that may hold any JSON value.

Agents change their record shapes between minor versions, and a damaged or hand-edited line can
put any JSON value in any field: ``{"type": "user", "message": "error"}`` is a real line. Every
parser reads fields through these helpers, so an odd value costs that value, never the line,
the file or the run.
"""

from __future__ import annotations

import math
from typing import Any

# Epoch seconds a log may plausibly carry: anything outside is a damaged value, and turning it
# into a date later (``datetime.fromtimestamp``) would raise.
EARLIEST_TS = 0.0
LATEST_TS = 32_503_680_000.0  # 3000-01-01


def as_dict(value: Any) -> dict:
    """``value`` if it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    """``value`` if it is an array, else an empty one."""
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    """``value`` if it is a string, else "": for ids, names, paths and types, where a number or
    an object in their place means nothing."""
    return value if isinstance(value, str) else ""


def scalar_text(value: Any) -> str:
    """Text of a value meant to be prose: a string as is, a number as written, anything else
    (null, true/false, arrays, objects) as nothing."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(value) if math.isfinite(value) else ""
    return ""


def as_int(value: Any) -> int | None:
    """A whole number from an int, an integral float or a string of digits (``"3"``, ``"v3"``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        digits = "".join(ch for ch in value if ch.isascii() and ch.isdigit())
        if digits and len(digits) < 10:
            return int(digits)
    return None


def str_list(value: Any) -> list[str]:
    """The strings in an array (``supersedesUuids``, ``retractedMessageUuids``)."""
    return [v for v in as_list(value) if isinstance(v, str) and v]


def plausible_ts(seconds: float) -> float | None:
    """Epoch seconds if they name a time between 1970 and 3000, else None."""
    if math.isfinite(seconds) and EARLIEST_TS <= seconds < LATEST_TS:
        return seconds
    return None

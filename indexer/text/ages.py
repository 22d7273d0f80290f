"""How long ago something happened, written one way everywhere: the app's tree, lists, headers,
status line and memory screens, and the CLI, all call ``relative_age``.

Units that cannot be misread: ``min`` for minutes and ``mo`` for months (never a bare ``m``),
then ``h``, ``d``, ``w``, ``y``; under a minute is "just now". ``now`` is passed in, so a test
(and a screen that ticks) decides the clock.
"""

from __future__ import annotations

MINUTE, HOUR, DAY = 60, 3600, 86400
# Largest first: the first unit that fits once is the one written.
UNITS = (("y", 365 * DAY), ("mo", 30 * DAY), ("w", 7 * DAY), ("d", DAY), ("h", HOUR), ("min", MINUTE))


def relative_age(ts: float | None, now: float, *, ago: bool = True) -> str:
    """``"3d ago"``, ``"10mo ago"``, ``"5min ago"``, ``"just now"``; ``ago=False`` for a column
    that says "age" already (``"3d"``). A time after ``now`` is "in the future"; none is "unknown time"."""
    if ts is None:
        return "unknown time"
    delta = now - ts
    if delta < 0:
        return "in the future"
    for unit, seconds in UNITS:
        if delta >= seconds:
            amount = f"{int(delta // seconds)}{unit}"
            return f"{amount} ago" if ago else amount
    return "just now"

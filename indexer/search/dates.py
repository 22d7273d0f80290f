"""Dates as a query writes them (``since:7d``, ``until:2026-05-01``, ``yesterday``): read by the
filter registry, the CLI's ``--since`` and the MCP tools alike."""

from __future__ import annotations

import functools
import re
from datetime import datetime, timedelta, timezone


# Compiled on first use: only a ``since:``/``until:`` filter reads a date.
@functools.cache
def _relative() -> re.Pattern[str]:
    return re.compile(r"^(\d+)\s*(m|min|h|d|w|mo|y)$", re.IGNORECASE)


def parse_date(value: str, now: float, *, end_of_day: bool = False) -> float | None:
    """Parse ``2026-04-02``, ``2026-04``, ``2026-04-02T09:15``, ``7d``, ``3h``, ``2w``,
    ``today``, ``yesterday`` into epoch seconds (UTC); ``None`` when not a date."""
    v = value.strip().lower()
    if not v:
        return None
    now_dt = datetime.fromtimestamp(now, tz=timezone.utc)
    if v in ("today", "yesterday"):
        day = now_dt.replace(hour=0, minute=0, second=0, microsecond=0)
        if v == "yesterday":
            day -= timedelta(days=1)
        if end_of_day:
            day += timedelta(days=1)
        return day.timestamp()
    m = _relative().match(v)
    if m:
        n, unit = int(m.group(1)), m.group(2).lower()
        seconds = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "mo": 30 * 86400, "y": 365 * 86400}[unit]
        return now - n * seconds
    for fmt, step in (
        ("%Y-%m-%dT%H:%M:%S", timedelta(seconds=1)),
        ("%Y-%m-%dT%H:%M", timedelta(minutes=1)),
        ("%Y-%m-%d", timedelta(days=1)),
        ("%Y-%m", None),
        ("%Y", None),
    ):
        try:
            dt = datetime.strptime(value.strip(), fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
        if end_of_day:
            if step is not None:
                dt += step
            elif fmt == "%Y-%m":
                dt = (dt.replace(day=28) + timedelta(days=4)).replace(day=1)
            else:
                dt = dt.replace(year=dt.year + 1)
        return dt.timestamp()
    return None

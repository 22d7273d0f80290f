"""Relative times ("3d ago", written by the core's ``relative_age``) and durations, always from a
``now`` the caller passes in."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import humanize

from indexer.text.ages import relative_age


def ago(ts: float | None, now: float) -> str:
    """``"3d ago"``: the core's one way of writing an age (``indexer.text.ages``)."""
    return relative_age(ts, now)


def dated(ts: float | None, now: float, *, compact: bool = False) -> str:
    """The date as well as how long ago, for lists: ``"2026-01-23 · 5mo ago"``; within the last
    day the time instead of the date (``"14:03 · 3h ago"``). ``compact`` drops the "ago" (a
    narrow table column). UTC, like ``clock``."""
    if ts is None:
        return "no time"
    delta = now - ts
    stamp = datetime.fromtimestamp(ts, timezone.utc)
    when = stamp.strftime("%H:%M") if 0 <= delta < 86400 else stamp.strftime("%Y-%m-%d")
    if delta < 0:
        return f"{when} · future"
    return f"{when} · {relative_age(ts, now, ago=not compact)}"


def duration(start: float | None, end: float | None) -> str:
    """``"12 minutes"``; empty when either end is unknown."""
    if start is None or end is None:
        return ""
    seconds = max(0.0, end - start)
    if seconds < 60:
        return f"{int(seconds)} s"
    return humanize.naturaldelta(timedelta(seconds=seconds))


def day_label(day: str, now: float) -> str:
    """``"2026-06-28 (3 days ago)"`` for a tree's day node; ``day`` is ``YYYY-MM-DD`` UTC."""
    try:
        start = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        return day
    return f"{day} · {relative_age(start, now)}"


def clock(ts: float | None) -> str:
    """``"2026-06-28 14:03"`` in UTC, so what a test sees does not depend on the machine."""
    if ts is None:
        return "--"
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d %H:%M")

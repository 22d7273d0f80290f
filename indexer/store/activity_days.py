"""The per-day counts behind the activity strip: sessions started and messages written.

Days are UTC calendar days, as the session tree's day level counts them. Only sessions that
ended inside the span are joined to their messages, so the cost follows recent work, not the
size of the index."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

from indexer.activity import ActivityStrip, DayActivity
from indexer.store.rows import TOP_LEVEL

DAY = 86400


def activity_days(c: sqlite3.Connection, now: float, days: int) -> ActivityStrip:
    """``days`` days ending today (the day holding ``now``), oldest first."""
    today = int(now // DAY)
    first = today - days + 1
    since, until = first * DAY, (today + 1) * DAY
    sessions = dict(c.execute(
        "SELECT CAST(s.start_ts / 86400 AS INTEGER) AS day, count(*) FROM sessions s"
        f" WHERE s.start_ts >= ? AND s.start_ts < ? AND {TOP_LEVEL} GROUP BY day",
        (since, until),
    ).fetchall())
    # CROSS JOIN keeps SQLite's join order: the recent sessions first (sessions_by_end), then
    # their messages by session; left to itself the planner scans every message in the index.
    messages = dict(c.execute(
        "SELECT CAST(m.ts / 86400 AS INTEGER) AS day, count(*) FROM sessions s"
        " CROSS JOIN messages m ON m.session_rowid = s.id"
        " WHERE (s.end_ts >= ? OR (s.end_ts IS NULL AND s.start_ts >= ?)) AND m.ts >= ? AND m.ts < ?"
        " GROUP BY day",
        (since, since, since, until),
    ).fetchall())
    return ActivityStrip(tuple(
        DayActivity(_iso_day(day), sessions.get(day, 0), messages.get(day, 0)) for day in range(first, today + 1)
    ))


def _iso_day(day: int) -> str:
    return datetime.fromtimestamp(day * DAY, tz=timezone.utc).strftime("%Y-%m-%d")

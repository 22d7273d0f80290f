"""Activity at a glance: which sessions are still being written, and how busy each day was.

Time is passed in (``now``) so "active" and the day strip are testable with a fixed clock.
"""

from __future__ import annotations

from indexer.models import Session
from typing import NamedTuple

ACTIVE_SECONDS = 5 * 60  # a session with a message this recent is still going
STRIP_DAYS = 12 * 7  # the activity strip's span: twelve weeks


def is_active(session: Session, now: float, window: float = ACTIVE_SECONDS) -> bool:
    """The session's newest message is within ``window`` seconds of ``now``: an agent is still
    writing it. The messages' own times, not the file's: a log just copied, cloned or restored
    has a new file time and old messages, and is not active. A log that is gone (only the
    index's copy is left) is never active."""
    if session.end_ts is None or session.source_missing:
        return False
    return now - window <= session.end_ts <= now + 60  # a little clock skew is forgiven


class DayActivity(NamedTuple):
    """One day of the strip: sessions started and messages written that day (local time)."""

    day: str  # YYYY-MM-DD
    sessions: int
    messages: int


class ActivityStrip(NamedTuple):
    """``days`` oldest first, every day of the span present (zeros for idle days)."""

    days: tuple[DayActivity, ...]

    @property
    def busiest(self) -> int:
        return max((d.messages for d in self.days), default=0)

    @property
    def total_sessions(self) -> int:
        return sum(d.sessions for d in self.days)

    @property
    def total_messages(self) -> int:
        return sum(d.messages for d in self.days)

    @property
    def active_days(self) -> int:
        return sum(1 for d in self.days if d.sessions or d.messages)

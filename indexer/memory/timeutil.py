"""ISO-8601 times as memory files hold them; naive times are taken as UTC."""

from __future__ import annotations

from datetime import datetime, timezone


def as_aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=timezone.utc)


def parse_iso(value: object) -> datetime | None:
    """``2026-04-02T09:15:00+08:00`` / ``...Z`` / ``2026-04-02`` -> aware datetime, else None."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return as_aware(datetime.fromisoformat(value.strip()))
    except ValueError:
        return None


def iso(dt: datetime) -> str:
    """Seconds precision, offset kept (``+08:00``), UTC shown as ``+00:00``."""
    return as_aware(dt).isoformat(timespec="seconds")

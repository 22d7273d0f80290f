"""The usage report (``threadback usage``): calls per day, the zero-hit rate and the queries that
found nothing, read from the usage log (``indexer.agents.usage``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

from indexer.agents.usage import CALLERS, UsageEvent, read_usage


@dataclass(frozen=True, slots=True)
class DayUsage:
    day: str  # YYYY-MM-DD
    calls: int
    queries: int
    zero_hits: int
    by_caller: dict[str, int] = field(default_factory=dict)  # you, agent, hook


@dataclass(frozen=True, slots=True)
class UsageReport:
    since: float
    until: float
    days: tuple[DayUsage, ...]  # every day in the window, oldest first, zeros included
    calls: int
    by_kind: dict[str, int]
    by_caller: dict[str, int]  # YOU (your own CLI calls), AGENT (an agent running the CLI), HOOK
    queries: int  # calls that ran a search
    zero_hits: int
    zero_hit_queries: tuple[tuple[str, int], ...]  # most frequent first
    prompts_seen: int = 0
    prompts_fired: int = 0
    problems: tuple[str, ...] = field(default=())

    @property
    def zero_hit_rate(self) -> float:
        return self.zero_hits / self.queries if self.queries else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "since": _iso(self.since),
            "until": _iso(self.until),
            "calls": self.calls,
            "by_kind": dict(self.by_kind),
            "by_caller": dict(self.by_caller),
            "queries": self.queries,
            "zero_hits": self.zero_hits,
            "zero_hit_rate": round(self.zero_hit_rate, 4),
            "prompts_seen": self.prompts_seen,
            "prompts_fired": self.prompts_fired,
            "days": [
                {"day": d.day, "calls": d.calls, "queries": d.queries, "zero_hits": d.zero_hits,
                 "by_caller": dict(d.by_caller)}
                for d in self.days
            ],
            "zero_hit_queries": [{"query": q, "count": n} for q, n in self.zero_hit_queries],
        }


def callers_of(events: list[UsageEvent]) -> dict[str, int]:
    """Calls per caller, every caller named (zeros too), in the order ``CALLERS`` lists them."""
    counts = Counter(e.caller for e in events)
    return {who: counts[who] for who in CALLERS}


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat().replace("+00:00", "Z")


def usage_report(
    now: float,
    days: int = 14,
    *,
    events: list[UsageEvent] | None = None,
    path: Path | None = None,
    tz: tzinfo = timezone.utc,
) -> UsageReport:
    """Calls per day over the last ``days`` calendar days (in ``tz``) ending today, the
    zero-hit rate of calls that searched, and the zero-hit queries with their counts."""
    days = max(1, days)
    first, since = _window_start(now, days, tz)
    if events is None:
        events = read_usage(path)
    window = [e for e in events if since <= e.ts <= now]
    searched, zero = _searches(window)
    prompts_seen, prompts_fired = _prompt_counts(window)
    return UsageReport(
        since=since,
        until=now,
        days=_day_rows(window, first, days, tz),
        calls=len(window),
        by_kind=dict(Counter(e.kind for e in window).most_common()),
        by_caller=callers_of(window),
        queries=len(searched),
        zero_hits=len(zero),
        zero_hit_queries=_zero_hit_queries(zero),
        prompts_seen=prompts_seen,
        prompts_fired=prompts_fired,
    )


def _window_start(now: float, days: int, tz: tzinfo) -> tuple[date, float]:
    """The first of the ``days`` calendar days ending today, and its midnight (in ``tz``)."""
    today = datetime.fromtimestamp(now, tz).date()
    first = today - timedelta(days=days - 1)
    return first, datetime(first.year, first.month, first.day, tzinfo=tz).timestamp()


def _searches(events: list[UsageEvent]) -> tuple[list[UsageEvent], list[UsageEvent]]:
    """The calls that ran a search, and those of them that found nothing."""
    searched = [e for e in events if e.hits is not None]
    return searched, [e for e in searched if e.hits == 0]


def _prompt_counts(events: list[UsageEvent]) -> tuple[int, int]:
    """How many prompts the hook saw, and on how many the recall detector fired."""
    prompts = [e for e in events if e.kind == "hook-prompt"]
    return len(prompts), sum(1 for e in prompts if e.fired)


def _day_rows(window: list[UsageEvent], first: date, days: int, tz: tzinfo) -> tuple[DayUsage, ...]:
    """One row per calendar day (in ``tz``) from ``first``, days without calls included."""
    per_day: dict[str, list[UsageEvent]] = {}
    for e in window:
        per_day.setdefault(datetime.fromtimestamp(e.ts, tz).date().isoformat(), []).append(e)
    day_names = ((first + timedelta(days=i)).isoformat() for i in range(days))
    return tuple(_day_usage(day, per_day.get(day, [])) for day in day_names)


def _day_usage(day: str, events: list[UsageEvent]) -> DayUsage:
    searched, zero = _searches(events)
    return DayUsage(day, len(events), len(searched), len(zero), callers_of(events))


def _zero_hit_queries(zero: list[UsageEvent]) -> tuple[tuple[str, int], ...]:
    """Each query that found nothing (spaces collapsed) with its count, most frequent first."""
    counts = Counter(" ".join((e.query or "").split()) for e in zero)
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

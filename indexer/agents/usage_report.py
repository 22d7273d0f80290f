"""The usage report (``threadback usage``): calls per day, the zero-hit rate and the queries that
found nothing, read from the usage log (``indexer.agents.usage``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
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
    today = datetime.fromtimestamp(now, tz).date()
    first = today - timedelta(days=days - 1)
    since = datetime(first.year, first.month, first.day, tzinfo=tz).timestamp()
    if events is None:
        events = read_usage(path)
    window = [e for e in events if since <= e.ts <= now]
    per_day: dict[str, list[UsageEvent]] = {}
    for e in window:
        per_day.setdefault(datetime.fromtimestamp(e.ts, tz).date().isoformat(), []).append(e)
    day_rows = []
    for i in range(days):
        day = (first + timedelta(days=i)).isoformat()
        evs = per_day.get(day, [])
        searched = [e for e in evs if e.hits is not None]
        day_rows.append(DayUsage(day, len(evs), len(searched), sum(1 for e in searched if e.hits == 0),
                                 callers_of(evs)))
    searched = [e for e in window if e.hits is not None]
    zero = [e for e in searched if e.hits == 0]
    zero_queries = Counter(" ".join((e.query or "").split()) for e in zero)
    prompts = [e for e in window if e.kind == "hook-prompt"]
    return UsageReport(
        since=since,
        until=now,
        days=tuple(day_rows),
        calls=len(window),
        by_kind=dict(Counter(e.kind for e in window).most_common()),
        by_caller=callers_of(window),
        queries=len(searched),
        zero_hits=len(zero),
        zero_hit_queries=tuple(sorted(zero_queries.items(), key=lambda kv: (-kv[1], kv[0]))),
        prompts_seen=len(prompts),
        prompts_fired=sum(1 for e in prompts if e.fired),
    )

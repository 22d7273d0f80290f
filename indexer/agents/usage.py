"""The usage log: one JSON line per hook call and agent-facing search, and a small report.

``<data dir>/usage.jsonl``; each line holds ``ts`` (epoch seconds), ``kind`` (``search``,
``hook-prompt``, ``hook-session-start``, ``hook-refresh``, ``context``, and ``show`` / ``resume``
when a session is opened after a search), and where they apply
``query``, ``hits``, ``excluded`` (session ids left out), ``session`` (the calling session),
``chosen`` (the session the agent went on to open, when known), ``fired`` (the prompt detector),
``agent`` (whose hook called) and ``ms`` (duration). It is how search gets tuned from real use: which queries find nothing.
Writing is best effort: a full disk must never break a search or a hook.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

from indexer.append_log import append_line
from indexer.config import data_dir

USAGE_FILE = "usage.jsonl"
MAX_QUERY_CHARS = 500


def usage_log_path() -> Path:
    return data_dir() / USAGE_FILE


@dataclass(frozen=True, slots=True)
class UsageEvent:
    ts: float
    kind: str
    query: str | None = None
    hits: int | None = None
    excluded: tuple[str, ...] = ()
    session: str | None = None
    chosen: str | None = None
    fired: bool | None = None
    ms: float | None = None
    agent: str | None = None  # the agent whose hook made the call (claude-code, codex)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ts": round(self.ts, 3), "kind": self.kind}
        if self.query is not None:
            out["query"] = self.query[:MAX_QUERY_CHARS]
        for name in ("hits", "session", "chosen", "fired", "agent"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.excluded:
            out["excluded"] = list(self.excluded)
        if self.ms is not None:
            out["ms"] = round(self.ms, 1)
        return out

    @classmethod
    def from_json(cls, obj: object) -> "UsageEvent | None":
        if not isinstance(obj, dict):
            return None
        ts, kind = obj.get("ts"), obj.get("kind")
        if not isinstance(ts, (int, float)) or isinstance(ts, bool) or not isinstance(kind, str):
            return None
        hits = obj.get("hits")
        excluded = obj.get("excluded") or ()
        return cls(
            ts=float(ts),
            kind=kind,
            query=obj["query"] if isinstance(obj.get("query"), str) else None,
            hits=hits if isinstance(hits, int) and not isinstance(hits, bool) else None,
            excluded=tuple(str(x) for x in excluded) if isinstance(excluded, list) else (),
            session=obj["session"] if isinstance(obj.get("session"), str) else None,
            chosen=obj["chosen"] if isinstance(obj.get("chosen"), str) else None,
            fired=obj["fired"] if isinstance(obj.get("fired"), bool) else None,
            ms=float(obj["ms"]) if isinstance(obj.get("ms"), (int, float)) else None,
            agent=obj["agent"] if isinstance(obj.get("agent"), str) else None,
        )


def record_usage(event: UsageEvent, path: Path | None = None) -> bool:
    """Append one line; False (and nothing raised) when the log cannot be written."""
    try:
        line = json.dumps(event.to_json(), ensure_ascii=False)
        append_line(path or usage_log_path(), line)
    except (OSError, ValueError):
        return False
    return True


def read_usage(path: Path | None = None) -> list[UsageEvent]:
    """Every readable line; broken lines are skipped."""
    try:
        text = (path or usage_log_path()).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    events = []
    for line in text.splitlines():
        try:
            event = UsageEvent.from_json(json.loads(line))
        except ValueError:
            continue
        if event is not None:
            events.append(event)
    return events


@dataclass(frozen=True, slots=True)
class DayUsage:
    day: str  # YYYY-MM-DD
    calls: int
    queries: int
    zero_hits: int


@dataclass(frozen=True, slots=True)
class UsageReport:
    since: float
    until: float
    days: tuple[DayUsage, ...]  # every day in the window, oldest first, zeros included
    calls: int
    by_kind: dict[str, int]
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
            "queries": self.queries,
            "zero_hits": self.zero_hits,
            "zero_hit_rate": round(self.zero_hit_rate, 4),
            "prompts_seen": self.prompts_seen,
            "prompts_fired": self.prompts_fired,
            "days": [
                {"day": d.day, "calls": d.calls, "queries": d.queries, "zero_hits": d.zero_hits}
                for d in self.days
            ],
            "zero_hit_queries": [{"query": q, "count": n} for q, n in self.zero_hit_queries],
        }


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
        day_rows.append(DayUsage(day, len(evs), len(searched), sum(1 for e in searched if e.hits == 0)))
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
        queries=len(searched),
        zero_hits=len(zero),
        zero_hit_queries=tuple(sorted(zero_queries.items(), key=lambda kv: (-kv[1], kv[0]))),
        prompts_seen=len(prompts),
        prompts_fired=sum(1 for e in prompts if e.fired),
    )

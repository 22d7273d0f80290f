"""The search query language, parsed without ever raising a syntax error at the user.

    plain words        all must match (substring, case-insensitive)
    "quoted phrase"    matches exactly that run of characters
    a OR b             either
    -word / -"phrase"  must not match
    agent: project: session: role: since: until:   filters

Anything that is not understood is searched for literally. The same parsed ``Query`` drives
the session index (``indexer.search``) and the memory store, so both speak one language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from indexer.sources import agent_named

FILTER_KEYS = ("agent", "project", "session", "role", "since", "until")

_TOKEN = re.compile(r'-?"[^"]*(?:"|$)|\S+')
_RELATIVE = re.compile(r"^(\d+)\s*(m|min|h|d|w|mo|y)$", re.IGNORECASE)


class QueryError(ValueError):
    """A query we cannot answer, with a message fit to show the user as it is."""


@dataclass(frozen=True, slots=True)
class Term:
    text: str
    phrase: bool = False


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: an AND of OR-groups of terms, exclusions, and filters."""

    raw: str
    groups: tuple[tuple[Term, ...], ...] = ()
    excluded: tuple[Term, ...] = ()
    agent: str | None = None
    project: str | None = None
    session: str | None = None
    role: str | None = None
    since: float | None = None
    until: float | None = None
    warnings: tuple[str, ...] = field(default=())

    @property
    def positive_terms(self) -> list[Term]:
        return [t for g in self.groups for t in g]

    @property
    def has_filters(self) -> bool:
        return any(
            v is not None
            for v in (self.agent, self.project, self.session, self.role, self.since, self.until)
        )

    @property
    def is_empty(self) -> bool:
        return not self.groups and not self.excluded and not self.has_filters


def is_cjk(ch: str) -> bool:
    """True for ideographs, kana and hangul: scripts written without spaces between words."""
    o = ord(ch)
    return (
        0x3040 <= o <= 0x30FF  # hiragana, katakana
        or 0x3400 <= o <= 0x4DBF  # CJK ext A
        or 0x4E00 <= o <= 0x9FFF  # CJK unified
        or 0xAC00 <= o <= 0xD7AF  # hangul syllables
        or 0xF900 <= o <= 0xFAFF  # compatibility ideographs
        or 0x20000 <= o <= 0x2FA1F  # ext B+
        or 0x31F0 <= o <= 0x31FF  # katakana ext
    )


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
    m = _RELATIVE.match(v)
    if m:
        n, unit = int(m.group(1)), m.group(2).lower()
        seconds = {
            "m": 60,
            "min": 60,
            "h": 3600,
            "d": 86400,
            "w": 7 * 86400,
            "mo": 30 * 86400,
            "y": 365 * 86400,
        }[unit]
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


def _unquote(token: str) -> str:
    if token.startswith('"'):
        token = token[1:]
        if token.endswith('"'):
            token = token[:-1]
    return token


def parse_query(text: str, now: float) -> Query:
    """Parse ``text``; never raises. Unknown syntax becomes literal search text."""
    groups: list[list[Term]] = []
    excluded: list[Term] = []
    filters: dict[str, object] = {}
    warnings: list[str] = []
    pending_or = False

    for token in _TOKEN.findall(text):
        if token == "OR":
            if groups:
                pending_or = True
            continue
        negated = token.startswith("-") and len(token) > 1
        body = token[1:] if negated else token

        key, sep, value = body.partition(":")
        if sep and not negated and key.lower() in FILTER_KEYS and not body.startswith('"'):
            key = key.lower()
            value = _unquote(value)
            if not value:
                warnings.append(f"{key}: needs a value")
                continue
            if key in ("since", "until"):
                ts = parse_date(value, now, end_of_day=(key == "until"))
                if ts is None:
                    warnings.append(
                        f"{key}:{value} is not a date (try 2026-04-02, 7d, 3h, 2w, yesterday)"
                    )
                    continue
                filters[key] = ts
            elif key == "agent":
                filters[key] = agent_named(value)
            else:
                filters[key] = value
            pending_or = False
            continue

        phrase = body.startswith('"')
        term_text = _unquote(body).strip() if phrase else body
        if not term_text:
            continue
        term = Term(term_text, phrase=phrase)
        if negated:
            excluded.append(term)
            continue
        if pending_or and groups:
            groups[-1].append(term)
        else:
            groups.append([term])
        pending_or = False

    return Query(
        raw=text,
        groups=tuple(tuple(g) for g in groups),
        excluded=tuple(excluded),
        agent=filters.get("agent"),  # type: ignore[arg-type]
        project=filters.get("project"),  # type: ignore[arg-type]
        session=filters.get("session"),  # type: ignore[arg-type]
        role=filters.get("role"),  # type: ignore[arg-type]
        since=filters.get("since"),  # type: ignore[arg-type]
        until=filters.get("until"),  # type: ignore[arg-type]
        warnings=tuple(warnings),
    )


def text_matches(query: Query, text: str) -> bool:
    """Whether ``text`` satisfies the query's terms (filters are the caller's business).

    Plain substring semantics, so it agrees with the trigram index and works for CJK of
    any length. Used where the corpus is small enough to scan (memory, rules).
    """
    low = text.lower()
    for group in query.groups:
        if not any(t.text.lower() in low for t in group):
            return False
    return not any(t.text.lower() in low for t in query.excluded)


def match_spans(text: str, terms: list[Term]) -> list[tuple[int, int]]:
    """Non-overlapping (start, end) spans of every occurrence of any term in ``text``."""
    low = text.lower()
    spans: list[tuple[int, int]] = []
    for term in terms:
        needle = term.text.lower()
        if not needle:
            continue
        start = 0
        while True:
            i = low.find(needle, start)
            if i < 0:
                break
            spans.append((i, i + len(needle)))
            start = i + len(needle)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged

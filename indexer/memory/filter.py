"""Which episodic entries a list shows, and in what order: the one filter the Episodic tab, the
``memory`` CLI and memory search share."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from indexer.memory.episodic import EpisodicEntry
from indexer.named_record import NamedTuple
from indexer.search.query import Query, parse_query, text_matches

TYPE_CHECKING = False
if TYPE_CHECKING:
    from indexer.memory.store import ScoredEntry


def matches_query(entry: EpisodicEntry, query: Query) -> bool:
    """The entry's time within ``since:``/``until:`` (an undated entry is outside any range)
    and its text matching the query's words."""
    when = entry.when
    if query.since is not None and (when is None or when.timestamp() < query.since):
        return False
    if query.until is not None and (when is None or when.timestamp() >= query.until):
        return False
    return text_matches(query, entry.search_text)


SORTS = ("strength", "time", "importance")
_FIELD = re.compile(r'(?<!\S)(type|tag):("[^"]*"|\S+)', re.IGNORECASE)


class EpisodicFilter(NamedTuple):
    """``type:failure tag:safety words``: any of the types, all of the tags, and the rest in the
    session query language (the Episodic tab's filter box; ``memory list --type --tag``)."""

    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    text: str = ""

    @classmethod
    def parse(cls, raw: str) -> "EpisodicFilter":
        types: list[str] = []
        tags: list[str] = []
        for name, value in _FIELD.findall(raw):
            (types if name.lower() == "type" else tags).append(value.strip('"').lower())
        return cls(tuple(types), tuple(tags), _FIELD.sub(" ", raw).strip())

    def apply(self, scored: "Sequence[ScoredEntry]", now: datetime) -> "list[ScoredEntry]":
        query = parse_query(self.text, now.timestamp()) if self.text else None
        kept = []
        for s in scored:
            e = s.entry
            if self.types and e.type.lower() not in self.types:
                continue
            lowered = {t.lower() for t in e.tags}
            if any(t not in lowered for t in self.tags):
                continue
            if query is not None and not matches_query(e, query):
                continue
            kept.append(s)
        return kept


def sort_scored(scored: "Sequence[ScoredEntry]", by: str, reverse: bool = False) -> "list[ScoredEntry]":
    """Strongest / newest / most important first (``reverse`` flips it); ties by file order."""
    def key(s: "ScoredEntry") -> tuple[float, float, int]:
        when = s.entry.when.timestamp() if s.entry.when else 0.0
        if by == "time":
            return (-when, -s.strength, s.entry.line)
        if by == "importance":
            return (-s.entry.importance, -s.strength, s.entry.line)
        return (-s.strength, -when, s.entry.line)
    ordered = sorted(scored, key=key)
    return ordered[::-1] if reverse else ordered

"""Which episodic entries a list shows, and in what order: the one filter the Episodic tab, the
``memory`` CLI and memory search share."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from indexer.memory.episodic import EpisodicEntry
from typing import NamedTuple
from indexer.search import filters as registry
from indexer.search.query import Query, parse_query, text_matches

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from indexer.memory.store import ScoredEntry


def _holds(f: registry.Filter, entry: object, values: tuple) -> bool:
    """Whether ``entry`` passes ``f``: every filter memory applies has a memory test."""
    return f.memory is None or f.memory(entry, values)


def matches_query(entry: EpisodicEntry, query: Query) -> bool:
    """The entry's time within ``since:``/``until:`` (an undated entry is outside any range)
    and its text matching the query's words."""
    for f in _MEMORY_QUERY_FILTERS:
        value = getattr(query, f.field)
        if value is not None and not _holds(f, entry, (value,)):
            return False
    return text_matches(query, entry.search_text)


SORTS = ("strength", "time", "importance")
# The registry's filters a session query carries that memory honours (since:, until:), and the
# memory-only ones (type:, tag:) this filter box reads before the rest goes to ``parse_query``.
_MEMORY_QUERY_FILTERS = [f for f in registry.session_filters() if registry.MEMORY in f.scope and f.memory is not None]
_ONLY_MEMORY = {f.key: f for f in registry.memory_only_filters()}
_FIELD = re.compile(r'(?<!\S)(' + "|".join(_ONLY_MEMORY) + r'):("[^"]*"|\S+)', re.IGNORECASE)


class EpisodicFilter(NamedTuple):
    """``type:failure tag:safety words``: any of the types, all of the tags, and the rest in the
    session query language (the Episodic tab's filter box; ``memory list --type --tag``)."""

    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    text: str = ""

    @classmethod
    def parse(cls, raw: str) -> "EpisodicFilter":
        found: dict[str, list[str]] = {key: [] for key in _ONLY_MEMORY}
        for name, value in _FIELD.findall(raw):
            found[name.lower()].append(value.strip('"').lower())
        return cls(tuple(found["type"]), tuple(found["tag"]), _FIELD.sub(" ", raw).strip())

    def apply(self, scored: "Sequence[ScoredEntry]", now: datetime) -> "list[ScoredEntry]":
        query = parse_query(self.text, now.timestamp()) if self.text else None
        wanted = [(_ONLY_MEMORY[key], values) for key, values in (("type", self.types), ("tag", self.tags)) if values]
        kept = []
        for s in scored:
            e = s.entry
            if any(not _holds(f, e, values) for f, values in wanted):
                continue
            if query is not None and not matches_query(e, query):
                continue
            kept.append(s)
        return kept


def filter_placeholder() -> str:
    """The Episodic tab's filter box placeholder, from the memory-only filters' examples."""
    return "filter: " + " ".join(f.example for f in _ONLY_MEMORY.values()) + " words…"


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

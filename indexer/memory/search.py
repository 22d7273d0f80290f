"""Searching a memory folder with the session query language: words AND, "phrases", OR,
-exclusions, substring matching (so short CJK words match), since:/until: on episodic entries."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from indexer.memory.episodic import EpisodicEntry
from indexer.memory.errors import MemoryNotFoundError
from indexer.memory.facts import Fact
from indexer.memory.filter import matches_query
from indexer.memory.scratchpad import ScratchpadItem
from indexer.memory.strength import StrengthBreakdown
from indexer.memory.timeutil import as_aware
from typing import NamedTuple
from indexer.search.query import parse_query, text_matches

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from indexer.memory.store import MemoryStore

TIERS = ("fact", "episodic", "scratchpad")


class MemoryHit(NamedTuple):
    """One search result; exactly one of ``fact``/``entry``/``item`` is set, as ``kind`` says."""

    kind: str  # "fact" | "episodic" | "scratchpad"
    id: str  # fact key, episodic id, or "scratchpad:<line>"
    text: str  # one line to show
    strength: float | None = None
    fact: Fact | None = None
    entry: EpisodicEntry | None = None
    item: ScratchpadItem | None = None
    breakdown: StrengthBreakdown | None = None


def search_tiers(
    store: "MemoryStore",
    query: str,
    now: datetime,
    *,
    tiers: Iterable[str] = TIERS,
    include_archived: bool = False,
    limit: int | None = None,
) -> list[MemoryHit]:
    """Facts, then episodic entries strongest first, then scratchpad items.

    Same query language as session search (words AND, "phrases", OR, -exclude; substring
    so short CJK words match). ``since:``/``until:`` filter episodic entries by ``ts`` and
    leave out the undated tiers. A broken fact.yml is skipped (see ``problems()``).
    """
    now = as_aware(now)
    q = parse_query(query, now.timestamp())
    wanted = set(tiers)
    dated = q.since is not None or q.until is not None
    hits: list[MemoryHit] = []
    if "fact" in wanted and not dated and store.fact_error() is None:
        for fact in store.facts(include_archived=include_archived):
            if text_matches(q, fact.search_text):
                hits.append(MemoryHit("fact", fact.key, f"{fact.key}: {fact.value_text}",
                                      fact=fact))
    if "episodic" in wanted:
        for s in store.scored(now, include_archived=include_archived):
            if matches_query(s.entry, q):
                hits.append(MemoryHit("episodic", s.entry.id, s.entry.summary, s.strength,
                                      entry=s.entry, breakdown=s.breakdown))
    if "scratchpad" in wanted and not dated:
        for item in store.scratchpad_items():
            if text_matches(q, item.text):
                hits.append(MemoryHit("scratchpad", f"scratchpad:{item.line}", item.text,
                                      item=item))
    if limit is not None:
        hits = hits[:limit]
    return hits


def find_memory(store: "MemoryStore", ref: str) -> EpisodicEntry | ScratchpadItem | Fact:
    """One memory by its id as ``MemoryHit.id`` names it: an episodic id (archived too), else
    ``scratchpad:<line>``, else a fact key. Raises ``MemoryNotFoundError``."""
    if any(e.id == ref for e in store.entries(include_archived=True)):
        return store.entry(ref)
    line = ref.removeprefix("scratchpad:")
    if ref.startswith("scratchpad:") and line.isdigit():
        item = next((i for i in store.scratchpad_items() if i.line == int(line)), None)
        if item is None:
            raise MemoryNotFoundError(f"no scratchpad item on line {line}")
        return item
    try:
        return store.fact(ref)
    except MemoryNotFoundError:
        raise MemoryNotFoundError(f"no episodic entry, fact or scratchpad item named {ref!r}") from None

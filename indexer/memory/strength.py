"""How strongly an episodic memory is held, exactly as the spec defines it:

    strength = importance/10 + retrieval_count*0.08 + association_edges*0.05
               - weeks_since_ts*0.03,   clamped to [0, 1]

``weeks_since_ts`` is ``(now - ts) / 604800 s``, not floored; a future (or missing) ``ts``
counts 0. An entry under the threshold (default 0.2) is "decayed": a candidate to archive.

Two things a person decides change the age term (``decay_weeks``): a pinned entry never decays
(0 weeks), and a refreshed (or restored) one decays from its ``refreshed_at``, not its ``ts``.
"""

from __future__ import annotations

from datetime import datetime

from indexer.memory.timeutil import as_aware
from indexer.util.named_record import NamedTuple

SECONDS_PER_WEEK = 604800
RETRIEVAL_WEIGHT = 0.08
ASSOCIATION_WEIGHT = 0.05
AGE_WEIGHT = 0.03
DEFAULT_DECAY_THRESHOLD = 0.2


TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: ``typing`` is not loaded to read memory
    from typing import Protocol

    class HasImportanceAndTime(Protocol):
        """What strength needs from an entry (``EpisodicEntry`` fits)."""

        @property
        def importance(self) -> int: ...

        @property
        def when(self) -> datetime | None: ...

        @property
        def decays_from(self) -> datetime | None: ...

        @property
        def pinned(self) -> bool: ...


class StrengthBreakdown(NamedTuple):
    """Each of the four terms, for a detail pane. ``age_term`` is the amount subtracted."""

    importance: int
    retrieval_count: int
    association_edges: int
    weeks_since_ts: float
    importance_term: float
    retrieval_term: float
    association_term: float
    age_term: float
    raw: float  # before clamping
    strength: float
    pinned: bool = False  # the age term is 0: the entry never decays

    def is_decayed(self, threshold: float = DEFAULT_DECAY_THRESHOLD) -> bool:
        return self.strength < threshold

    def to_dict(self) -> dict[str, float | int]:
        return {
            "importance": self.importance,
            "retrieval_count": self.retrieval_count,
            "association_edges": self.association_edges,
            "weeks_since_ts": self.weeks_since_ts,
            "importance_term": self.importance_term,
            "retrieval_term": self.retrieval_term,
            "association_term": self.association_term,
            "age_term": -self.age_term,
            "raw": self.raw,
            "strength": self.strength,
            "pinned": self.pinned,
        }


def weeks_since(ts: datetime | None, now: datetime) -> float:
    if ts is None:
        return 0.0
    seconds = (as_aware(now) - as_aware(ts)).total_seconds()
    return max(0.0, seconds / SECONDS_PER_WEEK)


def decay_weeks(entry: HasImportanceAndTime, now: datetime) -> float:
    """The weeks an entry has been decaying: none when pinned, else since its last refresh (or
    restore), else since its time."""
    return 0.0 if entry.pinned else weeks_since(entry.decays_from, now)


def strength_breakdown(
    importance: int,
    ts: datetime | None,
    now: datetime,
    *,
    retrieval_count: int = 0,
    association_edges: int = 0,
    pinned: bool = False,
) -> StrengthBreakdown:
    """``ts`` is when decay starts (``entry_breakdown`` picks it); ``pinned``: it does not."""
    weeks = 0.0 if pinned else weeks_since(ts, now)
    imp = importance / 10
    ret = retrieval_count * RETRIEVAL_WEIGHT
    assoc = association_edges * ASSOCIATION_WEIGHT
    age = weeks * AGE_WEIGHT
    raw = imp + ret + assoc - age
    return StrengthBreakdown(
        importance=importance,
        retrieval_count=retrieval_count,
        association_edges=association_edges,
        weeks_since_ts=weeks,
        importance_term=imp,
        retrieval_term=ret,
        association_term=assoc,
        age_term=age,
        raw=raw,
        strength=min(1.0, max(0.0, raw)),
        pinned=pinned,
    )


def entry_breakdown(
    entry: HasImportanceAndTime,
    now: datetime,
    *,
    retrieval_count: int = 0,
    association_edges: int = 0,
) -> StrengthBreakdown:
    """An entry's strength, term by term, with its pin and its last refresh taken into account."""
    return strength_breakdown(entry.importance, entry.decays_from, now, retrieval_count=retrieval_count,
                              association_edges=association_edges, pinned=entry.pinned)


def strength_of(
    entry: HasImportanceAndTime,
    now: datetime,
    *,
    retrieval_count: int = 0,
    association_edges: int = 0,
) -> float:
    """The clamped strength of an episodic entry (``entry_breakdown``)."""
    return entry_breakdown(entry, now, retrieval_count=retrieval_count, association_edges=association_edges).strength



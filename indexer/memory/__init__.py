"""The three-tier memory store: fact.yml, episodic.jsonl, scratchpad.md (+ associations).

Plain files the user and agents both edit; see each module's docstring for its format.
Nothing here imports a UI library.
"""

from indexer.memory.associations import DEFAULT_WEIGHT, Link
from indexer.memory.episodic import (
    DEFAULT_IMPORTANCE,
    EPISODE_TYPES,
    EpisodicDraft,
    EpisodicEntry,
)
from indexer.memory.errors import (
    ChangedOnDiskError,
    FactEditError,
    FactFileError,
    MemoryInputError,
    MemoryNotFoundError,
    Problem,
    YamlIssue,
)
from indexer.memory.facts import Fact, validate as validate_fact_text
from indexer.memory.filter import SORTS, EpisodicFilter, matches_query, sort_scored
from indexer.memory.promotion import guess_type, suggest_draft, suggest_tags
from indexer.memory.scratchpad import ScratchpadItem
from indexer.memory.search import TIERS, MemoryHit, find_memory
from indexer.memory.store import FinishResult, MemoryStore, ScoredEntry
from indexer.memory.strength import (
    DEFAULT_DECAY_THRESHOLD,
    StrengthBreakdown,
    strength_breakdown,
    strength_of,
)

__all__ = [
    "DEFAULT_DECAY_THRESHOLD",
    "DEFAULT_IMPORTANCE",
    "DEFAULT_WEIGHT",
    "EPISODE_TYPES",
    "SORTS",
    "TIERS",
    "ChangedOnDiskError",
    "EpisodicDraft",
    "EpisodicEntry",
    "EpisodicFilter",
    "Fact",
    "FactEditError",
    "FactFileError",
    "FinishResult",
    "Link",
    "MemoryHit",
    "MemoryInputError",
    "MemoryNotFoundError",
    "MemoryStore",
    "Problem",
    "ScoredEntry",
    "ScratchpadItem",
    "StrengthBreakdown",
    "YamlIssue",
    "find_memory",
    "guess_type",
    "matches_query",
    "sort_scored",
    "strength_breakdown",
    "strength_of",
    "suggest_draft",
    "suggest_tags",
    "validate_fact_text",
]

"""The three-tier memory store: fact.yml, episodic.jsonl, scratchpad.md (+ associations).

Plain files the user and agents both edit; see each module's docstring for its format.
Nothing here imports a UI library.
"""

from indexer import lazy_names

# Each name is imported from its module on first use: a session start reads a few files and
# loads only the modules that read them (every one at once was ~5 ms of each session start).
_WHERE = {
    "DEFAULT_WEIGHT": "indexer.memory.associations",
    "Link": "indexer.memory.associations",
    "DEFAULT_IMPORTANCE": "indexer.memory.episodic",
    "EPISODE_TYPES": "indexer.memory.episodic",
    "EpisodicDraft": "indexer.memory.episodic",
    "EpisodicEntry": "indexer.memory.episodic",
    "ChangedOnDiskError": "indexer.memory.errors",
    "FactEditError": "indexer.memory.errors",
    "FactFileError": "indexer.memory.errors",
    "MemoryInputError": "indexer.memory.errors",
    "MemoryNotFoundError": "indexer.memory.errors",
    "Problem": "indexer.memory.errors",
    "YamlIssue": "indexer.memory.errors",
    "Fact": "indexer.memory.facts",
    "validate_fact_text": ("indexer.memory.facts", "validate"),
    "SORTS": "indexer.memory.filter",
    "EpisodicFilter": "indexer.memory.filter",
    "matches_query": "indexer.memory.filter",
    "sort_scored": "indexer.memory.filter",
    "guess_type": "indexer.memory.promotion",
    "suggest_draft": "indexer.memory.promotion",
    "suggest_tags": "indexer.memory.promotion",
    "ScratchpadItem": "indexer.memory.scratchpad",
    "TIERS": "indexer.memory.search",
    "MemoryHit": "indexer.memory.search",
    "find_memory": "indexer.memory.search",
    "FinishResult": "indexer.memory.store",
    "MemoryStore": "indexer.memory.store",
    "ScoredEntry": "indexer.memory.store",
    "DEFAULT_DECAY_THRESHOLD": "indexer.memory.strength",
    "StrengthBreakdown": "indexer.memory.strength",
    "strength_breakdown": "indexer.memory.strength",
    "entry_breakdown": "indexer.memory.strength",
    "strength_of": "indexer.memory.strength",
}


__getattr__, __dir__ = lazy_names(__name__, globals(), _WHERE)


TYPE_CHECKING = False
if TYPE_CHECKING:  # what type checkers and editors see
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
        entry_breakdown,
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
    "entry_breakdown",
    "strength_of",
    "suggest_draft",
    "suggest_tags",
    "validate_fact_text",
]

"""MemoryStore: the one object the CLI and the TUI use to read and change a memory folder.

Each tier file is loaded on first use and remembered with its ``FileStamp``. Every write holds
the memory folder's lock (``indexer.memory.folder_lock``), so writers in other processes go one
at a time. Under it, a change that does not depend on what the caller saw (adding an entry,
archiving one by id) first re-reads a file that changed on disk; a whole-text save (the app's
editors) and a promotion of a scratchpad line refuse with ``ChangedOnDiskError`` instead (call
``reload()`` and try again). Time is always passed in as ``now`` (an aware datetime).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path

from indexer.config import resolve_memory_dir
from indexer.memory.associations import DEFAULT_WEIGHT, AssociationLog, Link
from indexer.memory.citations import CitationLog, cited_when
from indexer.memory.episodic import EpisodicDraft, EpisodicEntry, EpisodicLog
from indexer.memory.errors import FactFileError, MemoryInputError, MemoryNotFoundError, Problem, YamlIssue
from indexer.memory.folder_lock import FolderLock
from indexer.memory.retrievals import RetrievalLog
from indexer.memory.scratchpad import Scratchpad, ScratchpadItem
from indexer.memory.strength import DEFAULT_DECAY_THRESHOLD, StrengthBreakdown, strength_breakdown
from indexer.memory.timeutil import as_aware
from indexer.util.named_record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from indexer.memory.facts import Fact, FactFile
    from indexer.memory.search import MemoryHit


class ScoredEntry(NamedTuple):
    entry: EpisodicEntry
    breakdown: StrengthBreakdown

    @property
    def strength(self) -> float:
        return self.breakdown.strength


class FinishResult(NamedTuple):
    promoted: list[EpisodicEntry]
    history_path: Path | None  # copy of the scratchpad as it was (items marked), if any


class MemoryStore:
    FACT_FILE = "fact.yml"
    EPISODIC_FILE = "episodic.jsonl"
    SCRATCHPAD_FILE = "scratchpad.md"
    ASSOCIATIONS_FILE = "associations.jsonl"
    RETRIEVALS_FILE = "retrievals.jsonl"
    HISTORY_DIR = ".history"

    def __init__(self, folder: Path, reason: str = ""):
        self.folder = Path(folder)
        self.reason = reason  # why this folder (for the UI), e.g. "--memory-dir"
        self._lock = FolderLock(self.folder)
        self.reload()

    @classmethod
    def open(
        cls,
        explicit: str | Path | None = None,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> "MemoryStore":
        folder, reason = resolve_memory_dir(explicit, cwd, env)
        return cls(folder, reason)

    # --- paths and loading ----------------------------------------------------------------

    @property
    def fact_path(self) -> Path:
        return self.folder / self.FACT_FILE

    @property
    def episodic_path(self) -> Path:
        return self.folder / self.EPISODIC_FILE

    @property
    def scratchpad_path(self) -> Path:
        return self.folder / self.SCRATCHPAD_FILE

    @property
    def associations_path(self) -> Path:
        return self.folder / self.ASSOCIATIONS_FILE

    @property
    def retrievals_path(self) -> Path:
        return self.folder / self.RETRIEVALS_FILE

    @property
    def history_dir(self) -> Path:
        return self.folder / self.HISTORY_DIR

    def reload(self) -> None:
        """Forget everything loaded; the next call reads the files again."""
        self._facts: FactFile | None = None
        self._episodic: EpisodicLog | None = None
        self._links: AssociationLog | None = None
        self._scratch: Scratchpad | None = None
        self._retrievals: RetrievalLog | None = None

    @property
    def _fact_file(self) -> FactFile:
        if self._facts is None:
            from indexer.memory.facts import FactFile  # a session start may take its facts from the cache

            self._facts = FactFile(self.fact_path)
        return self._facts

    @property
    def _log(self) -> EpisodicLog:
        if self._episodic is None:
            self._episodic = EpisodicLog(self.episodic_path)
        return self._episodic

    @property
    def _assoc(self) -> AssociationLog:
        if self._links is None:
            self._links = AssociationLog(self.associations_path)
        return self._links

    @property
    def _pad(self) -> Scratchpad:
        if self._scratch is None:
            self._scratch = Scratchpad(self.scratchpad_path)
        return self._scratch

    @property
    def _retrieved(self) -> RetrievalLog:
        if self._retrievals is None:
            self._retrievals = RetrievalLog(self.retrievals_path)
        return self._retrievals

    def _fresh_log(self) -> EpisodicLog:
        """episodic.jsonl as it is on disk now (call with the lock held); the same for the others."""
        self._episodic = None if self._episodic and self._episodic.is_stale() else self._episodic
        return self._log

    def _fresh_facts(self) -> FactFile:
        self._facts = None if self._facts and self._facts.is_stale() else self._facts
        return self._fact_file

    def _fresh_links(self) -> AssociationLog:
        self._links = None if self._links and self._links.is_stale() else self._links
        return self._assoc

    def problems(self) -> list[Problem]:
        """Unreadable lines (kept in their files) and a broken fact.yml, for a warning."""
        found = self._log.problems() + self._assoc.problems() + self._retrieved.problems()
        error = self._fact_file.error
        if error is not None:
            issue = error.issues[0]
            found.insert(0, Problem(self.fact_path, issue.line, f"column {issue.column}: "
                                    f"{issue.message}"))
        return found

    # --- fact -----------------------------------------------------------------------------

    def facts(self, *, include_archived: bool = False) -> list[Fact]:
        """Raises ``FactFileError`` (with line and column) when fact.yml does not parse."""
        return self._fact_file.facts(include_archived=include_archived)

    def fact(self, key: str) -> Fact:
        return self._fact_file.get(key)

    def fact_text(self) -> str:
        return self._fact_file.text

    def fact_error(self) -> FactFileError | None:
        return self._fact_file.error

    def validate_facts(self, text: str) -> list[YamlIssue]:
        from indexer.memory.facts import validate

        return validate(text)

    def save_fact_text(self, text: str) -> None:
        """Validate then write; a broken text raises ``FactFileError`` and writes nothing."""
        with self._lock:
            self._fact_file.save_text(text)

    def archive_fact(self, key: str, now: datetime) -> Fact:
        with self._lock:
            return self._fresh_facts().archive(key, as_aware(now))

    def restore_fact(self, key: str) -> Fact:
        with self._lock:
            return self._fresh_facts().restore(key)

    # --- episodic -------------------------------------------------------------------------

    def entries(self, *, include_archived: bool = False) -> list[EpisodicEntry]:
        return self._log.entries(include_archived=include_archived)

    def entry(self, entry_id: str) -> EpisodicEntry:
        return self._log.get(entry_id)

    def known_tags(self) -> list[str]:
        return self._log.known_tags()

    def add(self, draft: EpisodicDraft, now: datetime) -> EpisodicEntry:
        with self._lock:
            return self._fresh_log().append([draft], as_aware(now))[0]

    def update(self, entry_id: str, **changes: object) -> EpisodicEntry:
        with self._lock:
            return self._fresh_log().update(entry_id, **changes)

    def archive_entry(self, entry_id: str, now: datetime) -> EpisodicEntry:
        with self._lock:
            return self._fresh_log().archive(entry_id, as_aware(now))

    def restore_entry(self, entry_id: str, now: datetime) -> EpisodicEntry:
        """Back from the archive, and refreshed (its decay starts again at ``now``)."""
        with self._lock:
            return self._fresh_log().restore(entry_id, as_aware(now))

    def pin_entry(self, entry_id: str, pinned: bool = True) -> EpisodicEntry:
        """A pinned entry never decays; ``pinned=False`` lets it decay again."""
        with self._lock:
            return self._fresh_log().pin(entry_id, pinned)

    def refresh_entry(self, entry_id: str, now: datetime) -> EpisodicEntry:
        """Its strength starts again: decay counts from ``now``."""
        with self._lock:
            return self._fresh_log().refresh(entry_id, as_aware(now))

    def archive_entries(self, entry_ids: Iterable[str], now: datetime) -> list[EpisodicEntry]:
        with self._lock:
            return self._fresh_log().archive_many(entry_ids, as_aware(now))

    def archive(self, ref: str, now: datetime) -> EpisodicEntry | Fact:
        """Archive an episodic entry by id, else a fact by key."""
        with self._lock:
            self._fresh_log()
            if self._has_entry(ref):
                return self.archive_entry(ref, now)
            self._require_fact(ref)
            return self.archive_fact(ref, now)

    def restore(self, ref: str, now: datetime) -> EpisodicEntry | Fact:
        with self._lock:
            self._fresh_log()
            if self._has_entry(ref):
                return self.restore_entry(ref, now)
            self._require_fact(ref)
            return self.restore_fact(ref)

    def _require_fact(self, ref: str) -> None:
        try:
            self.fact(ref)
        except MemoryNotFoundError:
            raise MemoryNotFoundError(f"no episodic entry or fact named {ref!r}") from None

    def _has_entry(self, entry_id: str) -> bool:
        return any(e.id == entry_id for e in self._log.entries(include_archived=True))

    # --- strength -------------------------------------------------------------------------

    def breakdown(self, entry: EpisodicEntry | str, now: datetime) -> StrengthBreakdown:
        if isinstance(entry, str):
            entry = self.entry(entry)
        edges = self._assoc.edge_counts()
        return strength_breakdown(
            entry.importance,
            cited_when(entry.decays_from, entry.id in CitationLog(self.folder).changed_refs(), as_aware(now)),
            as_aware(now),
            retrieval_count=self._retrieved.count(entry.id),
            association_edges=edges.get(entry.id, 0),
            pinned=entry.pinned,
        )

    def scored(self, now: datetime, *, include_archived: bool = False) -> list[ScoredEntry]:
        """Entries with their strength, strongest first."""
        now = as_aware(now)
        edges = self._assoc.edge_counts()
        changed = CitationLog(self.folder).changed_refs()
        scored = [
            ScoredEntry(
                e,
                strength_breakdown(
                    e.importance,
                    cited_when(e.decays_from, e.id in changed, now),
                    now,
                    retrieval_count=self._retrieved.count(e.id),
                    association_edges=edges.get(e.id, 0),
                    pinned=e.pinned,
                ),
            )
            for e in self.entries(include_archived=include_archived)
        ]
        return sorted(scored, key=_strongest_first)

    def decayed(
        self, now: datetime, threshold: float = DEFAULT_DECAY_THRESHOLD
    ) -> list[ScoredEntry]:
        """Active entries whose strength is below ``threshold``, weakest first."""
        weak = [s for s in self.scored(now) if s.breakdown.is_decayed(threshold)]
        return sorted(weak, key=lambda s: (s.strength, s.entry.line))

    # --- associations ---------------------------------------------------------------------

    def links(self, entry_id: str | None = None, *, include_archived: bool = False) -> list[Link]:
        return self._assoc.links(entry_id, include_archived=include_archived)

    def link(self, a: str, b: str, now: datetime, weight: float = DEFAULT_WEIGHT) -> Link:
        with self._lock:
            for entry_id in (a, b):
                self._fresh_log().get(entry_id)  # raises MemoryNotFoundError
            return self._fresh_links().link(a, b, as_aware(now), weight)

    def unlink(self, a: str, b: str, now: datetime) -> list[Link]:
        """Archive the link line(s) between a and b; nothing is deleted."""
        with self._lock:
            return self._fresh_links().unlink(a, b, as_aware(now))

    # --- scratchpad -----------------------------------------------------------------------

    def scratchpad_text(self) -> str:
        return self._pad.text

    def scratchpad_items(self) -> list[ScratchpadItem]:
        return self._pad.items()

    def save_scratchpad_text(self, text: str) -> None:
        with self._lock:
            self._pad.save_text(text)

    def suggest_promotion(self, line: int) -> EpisodicDraft:
        """The form's prefill for promoting the item on ``line``."""
        from indexer.memory.promotion import suggest_draft

        return suggest_draft(self._pad.item_at(line), self.known_tags())

    def promote(self, line: int, now: datetime, draft: EpisodicDraft | None = None, *,
                remove: bool = False) -> EpisodicEntry:
        """Append the item as an episodic entry and mark (or remove) its scratchpad line: both
        or neither (see ``indexer.memory.promotion_steps``). A promotion cut short after marking
        the line is finished by running it again, with the id the line names: never twice."""
        from indexer.memory.promotion import suggest_draft
        from indexer.memory.promotion_steps import promote_item

        with self._lock:
            self._pad.check_writable()  # ``line`` is a line of the scratchpad as loaded
            log = self._fresh_log()
            item = self._pad.item_at(line)
            if item.promoted_to and any(e.id == item.promoted_to for e in log.entries(include_archived=True)):
                raise MemoryInputError(f"line {line} was already promoted to {item.promoted_to}")
            draft = (draft or suggest_draft(item, self.known_tags())).validated()
            return promote_item(self._pad, log, line, item, draft, as_aware(now), remove=remove)

    def finish_task(
        self,
        chosen: Mapping[int, EpisodicDraft | None] | Iterable[int],
        now: datetime,
    ) -> FinishResult:
        """Promote the chosen items (line -> draft, or None for the suggestion), then clear
        the scratchpad. The old text, chosen items marked, goes to ``.history/`` and the
        previous file stays as ``scratchpad.md.bak``. All of it or, on an error, none."""
        from indexer.memory.promotion import suggest_draft
        from indexer.memory.promotion_steps import finish_items

        now = as_aware(now)
        picks = dict(chosen) if isinstance(chosen, Mapping) else dict.fromkeys(chosen)
        with self._lock:
            self._pad.check_writable()
            log = self._fresh_log()
            tags = self.known_tags()
            drafts = []
            for line, draft in sorted(picks.items()):
                item = self._promotable(line)
                drafts.append((draft or suggest_draft(item, tags)).validated())
            lines = [line for line, _ in sorted(picks.items())]
            promoted, history_path = finish_items(self._pad, log, lines, drafts, now, self.history_dir)
        return FinishResult(promoted, history_path)

    def _promotable(self, line: int) -> ScratchpadItem:
        item = self._pad.item_at(line)
        if item.promoted_to:
            raise MemoryInputError(f"line {line} was already promoted to {item.promoted_to}")
        return item

    # --- search ---------------------------------------------------------------------------

    def search(self, query: str, now: datetime, *, tiers: Iterable[str] | None = None,
               include_archived: bool = False, limit: int | None = None, record: bool = False) -> list[MemoryHit]:
        """Facts, then episodic entries strongest first, then scratchpad items (see
        ``indexer.memory.search``). ``record=True`` logs each returned episodic entry as a
        retrieval (the CLI does this: that is what ``retrieval_count`` counts).
        ``tiers``: all (``indexer.memory.search.TIERS``) when None."""
        from indexer.memory.search import TIERS, search_tiers

        hits = search_tiers(self, query, as_aware(now), tiers=TIERS if tiers is None else tiers,
                            include_archived=include_archived, limit=limit)
        if record:
            self.record_retrievals([h.id for h in hits if h.kind == "episodic"], query, now)
        return hits

    def record_retrievals(self, entry_ids: Iterable[str], query: str, now: datetime) -> None:
        self._retrieved.record(entry_ids, query, as_aware(now))


def _strongest_first(s: ScoredEntry) -> tuple[float, float, int]:
    when = s.entry.when
    return (-s.strength, -(when.timestamp() if when else 0.0), s.entry.line)

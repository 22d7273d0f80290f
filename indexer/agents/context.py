"""What a new agent session should start with: approved rules, then memory as reference data.

Approved rules (whose text still matches the approved hash, with an approval this user's key
verifies) come first, outside the wrapper: a person approved exactly that text. They too are
shown with invisible characters as markers and secrets masked (``textsafe.make_safe``). Everything else — facts, scratchpad items, episodic entries — was
written by agents or copied from logs, so it goes inside one ``<memory note=...>`` block that
tells the reader not to follow instructions in it, and any ``</memory>`` inside the material is
escaped so a note cannot close the block early. The whole text stays within a byte budget,
cut on a character boundary with a visible marker.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path

from indexer.agents.reference import WRAP_CLOSE, WRAP_OPEN, escape_for_wrapper, wrap_reference  # noqa: F401 - re-exported
from indexer.config import global_memory_dir, resolve_memory_folder
from indexer.util.named_record import NamedTuple
from indexer.text.storable import storable
from indexer.text.safe import make_safe

# The memory and rule stores (~10 ms to load, with the YAML library behind them) are loaded
# where a piece reads a folder: in the session-start hook's child process, and not at all
# when the folder does not exist (a new user's).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from indexer.memory import MemoryStore
    from indexer.rules import RuleStore

DEFAULT_MAX_BYTES = 16384
EPISODIC_LIMIT = 12
ITEM_MAX_CHARS = 1500  # one huge fact must not crowd out everything else

TRUNCATION_MARKER = "…[context truncated: {max_bytes} byte limit]"


def cut_to_bytes(text: str, max_bytes: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 form fits in ``max_bytes``; never splits a
    character."""
    if max_bytes <= 0:
        return ""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", "ignore")


def _nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _clip(text: str, limit: int = ITEM_MAX_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _indent_rest(text: str, prefix: str = "  ") -> str:
    lines = text.split("\n")
    return "\n".join([lines[0], *(prefix + line for line in lines[1:])])


class ContextMaterial(NamedTuple):
    """The pieces, already formatted one per list item, before the byte cap."""

    rules: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    scratchpad: tuple[str, ...] = ()
    episodic: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # our own lines about what was left out, and why

    @property
    def is_empty(self) -> bool:
        return not (self.rules or self.facts or self.scratchpad or self.episodic or self.problems
                    or self.notes)


class Piece(NamedTuple):
    """One part of the context: its list items, and any problem reading it."""

    items: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


# Names of the parts, in the order they are read, as a note names them when left out.
PIECE_LABELS = {
    "rules": "approved rules",
    "scratchpad": "scratchpad items",
    "episodic": "episodic memory",
    "facts": "facts (fact.yml)",  # last: ruamel reads YAML slowly
}


def _rules_piece(rule_store: "RuleStore | Path | None") -> Piece:
    if rule_store is None:
        return Piece()
    if isinstance(rule_store, Path):
        from indexer.rules import RuleStore

        rule_store = RuleStore(rule_store)
    changed = _changed_sources(rule_store.memory_dir)
    return Piece(tuple("- " + _indent_rest(make_safe(_clip(r.text, 4000))) + _unsettled(changed.get(f"rule:{r.id}"))
                       for r in rule_store.approved()))


def _facts_piece(memory_store: "MemoryStore") -> Piece:
    from indexer.memory.errors import FactFileError

    try:
        facts = memory_store.facts()
    except FactFileError as exc:
        return Piece(problems=(f"fact.yml could not be read ({exc}); facts left out",))
    changed = _changed_sources(memory_store.folder)
    return Piece(tuple("- " + _indent_rest(_clip(f"{f.key}: {f.value_text}")) + _unsettled(changed.get(f"fact:{f.key}"))
                       for f in facts))


def _scratchpad_piece(memory_store: "MemoryStore") -> Piece:
    """Open tasks (``- [ ]``) as tasks, plain bullets as bullets: a note is not a to-do."""
    return Piece(tuple(
        ("- [ ] " if item.kind == "checklist" else "- ") + _clip(item.text)
        for item in memory_store.scratchpad_items()
        if not item.checked and not item.promoted_to
    ))


def _episodic_piece(memory_store: "MemoryStore", now: datetime, limit: int) -> Piece:
    from indexer.memory import DEFAULT_DECAY_THRESHOLD

    episodic: list[str] = []
    changed = _changed_sources(memory_store.folder)
    for scored in memory_store.scored(now):
        if len(episodic) >= limit:
            break
        if scored.breakdown.is_decayed(DEFAULT_DECAY_THRESHOLD):
            continue
        e = scored.entry
        when = e.when.date().isoformat() if e.when else "undated"
        line = f"- {when} [{e.type}] {e.summary}"
        if e.lesson:
            line += f" — lesson: {e.lesson}"
        episodic.append(_indent_rest(_clip(line)) + _unsettled(changed.get(e.id)))
    return Piece(tuple(episodic))


SOURCE_CHANGED_NOTE = " (source changed: the session it cites says otherwise now or is gone; verify before relying on it)"


def _changed_sources(folder: Path) -> dict[str, str]:
    """What to say after each cited memory, as its citations were last checked
    (``indexer.memory.citations``): its source changed, and the files its sessions wrote that
    changed since."""
    from indexer.memory.citations import CitationLog
    from indexer.provenance.changed_files import changed_line

    try:
        log = CitationLog(folder)
        changed, files = log.changed_refs(), log.changed_files_of()
    except OSError:
        return {}
    notes = {ref: SOURCE_CHANGED_NOTE for ref in changed}
    for ref, paths in files.items():
        notes[ref] = notes.get(ref, "") + f" ({changed_line(list(paths))})"
    return notes


def _unsettled(note: str | None) -> str:
    return note or ""


def context_pieces(
    memory_store: "MemoryStore",
    rule_store: "RuleStore | Path | None",
    *,
    now: datetime,
    episodic_limit: int = EPISODIC_LIMIT,
) -> list[tuple[str, Callable[[], Piece]]]:
    """The parts of the context as (name, work) pairs, cheapest first, so a hook on a budget
    (``indexer.agents.budget``) gets as much as there is time for."""
    from indexer.memory.timeutil import as_aware

    now = as_aware(now)
    work = {
        "rules": lambda: _rules_piece(rule_store),
        "scratchpad": lambda: _scratchpad_piece(memory_store),
        "episodic": lambda: _episodic_piece(memory_store, now, episodic_limit),
        "facts": lambda: _facts_piece(memory_store),
    }
    return [(name, work[name]) for name in PIECE_LABELS]


class FolderContext:
    """The memory folder for a session in ``cwd``, opened when its first piece runs (in the
    process that runs the pieces, so even reading the allow list is within a hook's budget).

    A project folder the user has not allowed is left out for the global one, with a note; one
    whose rules changed since it was allowed gives its memory but not its rules.

    A folder that does not exist gives every piece empty without loading the stores: what
    they would read there (no file at all) is nothing."""

    def __init__(self, explicit: str | Path | None, cwd: Path | None,
                 env: Mapping[str, str] | None = None) -> None:
        self.explicit, self.cwd, self.env = explicit, cwd, env
        self._store: MemoryStore | None = None
        self._memory_folder: tuple[Path, str] | None = None  # (path, reason), once opened
        self.rules_dir: Path | None = None

    @property
    def memory(self) -> "MemoryStore | None":
        """The memory store of the folder chosen (None before ``open``), made on first use."""
        if self._store is None and self._memory_folder is not None:
            from indexer.memory import MemoryStore

            self._store = MemoryStore(*self._memory_folder)
        return self._store

    def open(self) -> Piece:
        folder = resolve_memory_folder(self.explicit, self.cwd, self.env)
        if not folder.is_project:  # the user's own folder (named, or the global one): always trusted
            self._memory_folder = (folder.path, folder.reason)
            self.rules_dir = folder.path
            self._store = None
            return Piece()
        from indexer.memory.trust import folder_trust  # the allow list: a cloned project's folder only

        trust = folder_trust(folder)
        note = trust.note()
        if trust.memory_readable:
            self._memory_folder = (folder.path, folder.reason)
            self.rules_dir = folder.path if trust.rules_count else None
        else:  # the user's own global folder instead
            self._memory_folder = (global_memory_dir(), "global default under the data dir")
            self.rules_dir = global_memory_dir()
        self._store = None
        return Piece(items=(note,) if note else ())

    def pieces(self, *, now: datetime, episodic_limit: int = EPISODIC_LIMIT, cache_facts: bool = False
               ) -> list[tuple[str, Callable[[], Piece]]]:
        """``cache_facts``: reuse the fact lines of the last session start when fact.yml holds
        the same text (``indexer.agents.facts_cache``; the session-start hook's)."""
        def later(name: str) -> Callable[[], Piece]:
            def run() -> Piece:
                assert self._memory_folder is not None, "the folder piece runs first"
                read_from = self.rules_dir if name == "rules" else self._memory_folder[0]
                if read_from is None or _missing(read_from):
                    return Piece()
                if name == "rules":  # the rule store alone: not the memory store's modules
                    return _rules_piece(read_from)
                if name == "facts" and cache_facts:
                    return self._cached_facts_piece()
                store = self.memory
                assert store is not None, "a folder that is there has a store"
                work = dict(context_pieces(store, self.rules_dir, now=now, episodic_limit=episodic_limit))
                return work[name]()
            return run

        return [("folder", self.open), *((name, later(name)) for name in PIECE_LABELS)]

    def _cached_facts_piece(self) -> Piece:
        from indexer.agents.facts_cache import cached_lines, remember_lines

        store = self.memory
        assert store is not None
        if (store.folder / "citations.jsonl").exists():  # a fact's line says how its sources stand now
            return _facts_piece(store)
        lines = cached_lines(store.fact_path)
        if lines is not None:
            return Piece(lines)
        piece = _facts_piece(store)
        text = store.fact_text() if not piece.problems else ""
        if text:
            remember_lines(store.fact_path, text, piece.items)
        return piece


def _missing(path: Path) -> bool:
    """Nothing at all at ``path`` (not even a broken link): any other case, a file in the way
    or a folder that cannot be read, is left to the stores to report as they do."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def material_from(results: dict[str, object], *, notes: tuple[str, ...] = (),
                  budget_seconds: float | None = None) -> ContextMaterial:
    """The material from the pieces that finished; each one that did not, or failed, is left
    out with a problem line saying so. A ``folder`` piece (``FolderContext``) gives the notes."""
    parts: dict[str, tuple[str, ...]] = {}
    problems: list[str] = []
    folder = results.get("folder", Piece())
    if isinstance(folder, Piece):
        notes = (*notes, *folder.items)
    else:
        problems.append("the memory folder was left out: "
                        + (f"not read within the hook's {budget_seconds:g} s budget"
                           if folder is None else str(folder)))
        results = {}
    for name, label in PIECE_LABELS.items():
        result = results.get(name)
        if isinstance(result, Piece):
            parts[name] = result.items
            problems.extend(result.problems)
        elif result is None:
            if "folder" in results or not isinstance(folder, Piece):
                within = f" within the hook's {budget_seconds:g} s budget" if budget_seconds else ""
                problems.append(f"{label} left out: not read{within}")
        else:
            problems.append(f"{label} left out: {result}")
    return ContextMaterial(
        parts.get("rules", ()), parts.get("facts", ()), parts.get("scratchpad", ()),
        parts.get("episodic", ()), tuple(problems), notes,
    )


def gather_context(
    memory_store: "MemoryStore",
    rule_store: "RuleStore | None",
    *,
    now: datetime,
    episodic_limit: int = EPISODIC_LIMIT,
    notes: tuple[str, ...] = (),
) -> ContextMaterial:
    """Collect what goes into the context, strongest material first within each tier."""
    pieces = context_pieces(memory_store, rule_store, now=now, episodic_limit=episodic_limit)
    return material_from(run_all(pieces), notes=notes)


def run_all(pieces: list[tuple[str, Callable[[], Piece]]]) -> dict[str, object]:
    """Every piece, here and now (no budget): for ``threadback context``."""
    results: dict[str, object] = {}
    for name, work in pieces:
        try:
            results[name] = work()
        except Exception as exc:  # noqa: BLE001 - a broken file costs its part, not the context
            results[name] = f"{type(exc).__name__}: {exc}"
    return results


def render_context(material: ContextMaterial, *, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The context text, at most ``max_bytes`` UTF-8 bytes ("" when there is nothing)."""
    if material.is_empty:
        return ""
    trusted: list[str] = [make_safe(note) for note in material.notes]
    if trusted:
        trusted.append("")
    if material.rules:
        trusted += ["## Approved rules (follow these)", *material.rules, ""]
    reference: list[str] = []
    for title, items in (
        ("## Facts", material.facts),
        ("## Scratchpad: open items", material.scratchpad),
        ("## Recent episodic memory (strongest first)", material.episodic),
        ("## Problems", material.problems),
    ):
        if items:
            reference += [title, *items, ""]
    head = storable("# Threadback memory\n\n" + "\n".join(trusted))  # a lone surrogate: U+FFFD
    body = storable(escape_for_wrapper("\n".join(reference).rstrip("\n"))) if reference else ""
    full = head + (f"{WRAP_OPEN}\n{body}\n{WRAP_CLOSE}\n" if body else "")
    if _nbytes(full) <= max_bytes:
        return full
    return _truncated(head, body, max_bytes)


def _truncated(head: str, body: str, max_bytes: int) -> str:
    """Cut at the byte cap, keeping the wrapper closed and the marker visible."""
    marker = "\n" + TRUNCATION_MARKER.format(max_bytes=max_bytes) + "\n"
    closing = f"\n{WRAP_CLOSE}"
    opening = f"{WRAP_OPEN}\n"
    room = max_bytes - _nbytes(marker)
    if room <= 0:
        return cut_to_bytes(marker.strip("\n"), max_bytes)
    if _nbytes(head) >= room or not body:
        # The cut falls among the approved rules: no reference block at all.
        return cut_to_bytes(head, room).rstrip("\n") + marker
    room -= _nbytes(head)
    room_for_body = room - _nbytes(opening) - _nbytes(closing)
    if room_for_body <= 0:
        return head.rstrip("\n") + marker
    kept = cut_to_bytes(body, room_for_body)
    return head + opening + kept + closing + marker


def build_context(
    memory_store: "MemoryStore",
    rule_store: "RuleStore | None",
    *,
    now: datetime,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> str:
    """Approved rules, then facts, open scratchpad items and the strongest recent episodic
    entries as reference data, in at most ``max_bytes`` bytes."""
    return render_context(gather_context(memory_store, rule_store, now=now), max_bytes=max_bytes)

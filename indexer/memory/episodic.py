"""episodic.jsonl: one event per line (decision, failure, milestone, lesson, note).

    {"id":"ep-1a2b3c4d","ts":"2026-04-02T09:15:00+08:00","type":"failure","summary":"...",
     "detail":"...","lesson":"...","tags":["safety"],"importance":7}

Every entry has a stable ``id``. A line without one gets ``ep-`` + 8 hex of a hash of its
line number and text, so the id shown before any write is the id written into the line the
next time the file is written (put first, other keys keep their order). ``importance`` is
1-10, 5 when missing; a default is never written into a line that is not otherwise changed.
Archiving adds ``"archived":true,"archived_at":ISO`` to the line; restoring removes them and
refreshes the entry. ``"pinned":true`` keeps an entry from decaying; ``"refreshed_at":ISO`` makes
its decay start again from then (``indexer.memory.strength``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path

from indexer.util.digest import sha256_hex
from indexer.util.frozen_record import frozen_record, not_compared
from indexer.util.fileio import check_unchanged
from indexer.memory.errors import MemoryInputError, MemoryNotFoundError, Problem
from indexer.memory.jsonl import JsonlFile, JsonlLine, new_line, with_body
from indexer.memory.timeutil import iso, parse_iso
from indexer.util.named_record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EPISODE_TYPES = ("decision", "failure", "milestone", "lesson", "note")
DEFAULT_IMPORTANCE = 5
ID_PREFIX = "ep-"


def derived_id(line_no: int, body: str) -> str:
    digest = sha256_hex(f"{line_no}:{body}".encode("utf-8", "surrogateescape"))
    return ID_PREFIX + digest[:8]


def new_id(taken: set[str]) -> str:
    import secrets  # on first use: it loads random and base64, which reading memory never needs

    while True:
        candidate = ID_PREFIX + secrets.token_hex(4)
        if candidate not in taken:
            return candidate


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _importance(value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return DEFAULT_IMPORTANCE
    return min(10, max(1, number))


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple):
        return ()
    return tuple(t.strip() for t in (_text(v) for v in value) if t.strip())


@frozen_record
class EpisodicEntry:
    """One episodic memory as read from its line; ``fields`` is the whole object as stored."""

    id: str
    ts: str | None
    type: str
    summary: str
    detail: str
    lesson: str
    tags: tuple[str, ...]
    importance: int
    archived: bool
    archived_at: str | None
    line: int  # 1-based line in episodic.jsonl
    id_stored: bool  # False while the id is derived and not yet written into the line
    fields: Mapping[str, Any] = not_compared(factory=dict)
    pinned: bool = False  # never decays
    refreshed_at: str | None = None  # decay counts from here, not from ``ts``

    @property
    def when(self) -> datetime | None:
        return parse_iso(self.ts)

    @property
    def decays_from(self) -> datetime | None:
        """When its decay started: the last refresh (or restore), else the event's time."""
        return parse_iso(self.refreshed_at) or self.when

    @property
    def search_text(self) -> str:
        return "\n".join(
            [self.type, self.summary, self.detail, self.lesson, " ".join(self.tags)]
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "ts": self.ts,
            "type": self.type,
            "summary": self.summary,
            "detail": self.detail,
            "lesson": self.lesson,
            "tags": list(self.tags),
            "importance": self.importance,
            "archived": self.archived,
            "archived_at": self.archived_at,
            "pinned": self.pinned,
            "refreshed_at": self.refreshed_at,
            "line": self.line,
        }

    @classmethod
    def from_obj(cls, obj: Mapping[str, Any], line: int, fallback_id: str) -> "EpisodicEntry":
        stored = obj.get("id")
        return cls(
            id=_text(stored) if stored not in (None, "") else fallback_id,
            ts=_text(obj.get("ts")) or None,
            type=_text(obj.get("type")) or "note",
            summary=_text(obj.get("summary")),
            detail=_text(obj.get("detail")),
            lesson=_text(obj.get("lesson")),
            tags=_tags(obj.get("tags")),
            importance=_importance(obj.get("importance", DEFAULT_IMPORTANCE)),
            archived=obj.get("archived") is True,
            archived_at=_text(obj.get("archived_at")) or None,
            line=line,
            id_stored=stored not in (None, ""),
            fields=dict(obj),
            pinned=obj.get("pinned") is True,
            refreshed_at=_text(obj.get("refreshed_at")) or None,
        )


class EpisodicDraft(NamedTuple):
    """What ``add`` and ``promote`` write: a new entry before it has an id and a line."""

    summary: str
    type: str = "note"
    detail: str = ""
    lesson: str = ""
    tags: tuple[str, ...] = ()
    importance: int = DEFAULT_IMPORTANCE
    ts: str | None = None  # ISO 8601; None means "now"

    def validated(self) -> "EpisodicDraft":
        summary = self.summary.strip()
        if not summary:
            raise MemoryInputError("summary cannot be empty")
        if not isinstance(self.importance, int) or not 1 <= self.importance <= 10:
            raise MemoryInputError(f"importance must be 1-10, not {self.importance!r}")
        if self.ts is not None and parse_iso(self.ts) is None:
            raise MemoryInputError(f"ts {self.ts!r} is not an ISO 8601 time")
        kind = (self.type or "note").strip()
        if not kind or any(c.isspace() for c in kind):
            raise MemoryInputError(f"type must be one word, not {self.type!r}")
        return EpisodicDraft(
            summary=summary,
            type=kind,
            detail=self.detail.strip(),
            lesson=self.lesson.strip(),
            tags=_tags(list(self.tags)),
            importance=self.importance,
            ts=self.ts,
        )

    def to_obj(self, entry_id: str, now: datetime) -> dict[str, Any]:
        obj: dict[str, Any] = {"id": entry_id, "ts": self.ts or iso(now), "type": self.type}
        obj["summary"] = self.summary
        if self.detail:
            obj["detail"] = self.detail
        if self.lesson:
            obj["lesson"] = self.lesson
        obj["tags"] = list(self.tags)
        obj["importance"] = self.importance
        return obj


class EpisodicLog:
    """The loaded episodic.jsonl: entries, bad lines, and edits that keep the rest intact."""

    def __init__(self, path: Path):
        self.file = JsonlFile.load(path)
        self._index()

    @property
    def path(self) -> Path:
        return self.file.path

    def _index(self) -> None:
        self._entries: list[EpisodicEntry] = []
        self._derived: dict[int, str] = {}  # line index -> id to write
        for i, line in enumerate(self.file.lines):
            if line.obj is None:
                continue
            fallback = derived_id(i + 1, line.body)
            entry = EpisodicEntry.from_obj(line.obj, i + 1, fallback)
            if not entry.id_stored:
                self._derived[i] = fallback
            self._entries.append(entry)

    def entries(self, *, include_archived: bool = False) -> list[EpisodicEntry]:
        return [e for e in self._entries if include_archived or not e.archived]

    def problems(self) -> list[Problem]:
        problems = self.file.problems()
        seen: dict[str, int] = {}
        for e in self._entries:
            if e.id in seen:
                problems.append(
                    Problem(self.path, e.line, f"duplicate id {e.id} (first on line {seen[e.id]})")
                )
            else:
                seen[e.id] = e.line
        return problems

    def get(self, entry_id: str) -> EpisodicEntry:
        for e in self._entries:
            if e.id == entry_id:
                return e
        raise MemoryNotFoundError(f"no episodic entry {entry_id}")

    def known_tags(self) -> list[str]:
        """Tags in use, most used first (suggestions for new entries)."""
        counts: dict[str, int] = {}
        for e in self._entries:
            for t in e.tags:
                counts[t] = counts.get(t, 0) + 1
        return sorted(counts, key=lambda t: (-counts[t], t))

    def _with_ids(self) -> list[JsonlLine]:
        lines = list(self.file.lines)
        for i, entry_id in self._derived.items():
            obj = lines[i].obj
            assert obj is not None
            lines[i] = with_body(lines[i], {"id": entry_id, **obj})
        return lines

    def _write(self, lines: list[JsonlLine]) -> None:
        self.file.write(lines)
        self._index()

    def snapshot(self) -> list[JsonlLine]:
        """The lines as they are now, for ``put_back`` if a change spanning two files fails."""
        return list(self.file.lines)

    def put_back(self, lines: list[JsonlLine]) -> None:
        """Write ``lines`` (a ``snapshot``) back, byte for byte."""
        self._write(lines)

    def is_stale(self) -> bool:
        return self.file.is_stale()

    def new_id(self) -> str:
        """An id no entry has, for an entry about to be added."""
        return new_id({e.id for e in self._entries})

    def append(
        self, drafts: Iterable[EpisodicDraft], now: datetime, ids: Iterable[str] | None = None
    ) -> list[EpisodicEntry]:
        """Add entries at the end (one atomic write); returns them with their ids (``ids``: the
        ids to give them, chosen beforehand)."""
        valid = [d.validated() for d in drafts]
        taken = {e.id for e in self._entries}
        chosen = list(ids) if ids is not None else []
        lines = self._with_ids()
        new_ids = []
        for n, draft in enumerate(valid):
            entry_id = chosen[n] if n < len(chosen) else new_id(taken)
            taken.add(entry_id)
            new_ids.append(entry_id)
            lines.append(new_line(draft.to_obj(entry_id, now)))
        self._write(lines)
        return [self.get(i) for i in new_ids]

    def check_writable(self) -> None:
        """Raise ``ChangedOnDiskError`` now rather than half-way through a two-file change."""
        check_unchanged(self.path, self.file.stamp)

    def change(
        self, entry_id: str, set_fields: Mapping[str, Any], remove: Iterable[str] = ()
    ) -> EpisodicEntry:
        """Rewrite one entry's line: set/replace keys (new keys go last), drop ``remove``."""
        entry = self.get(entry_id)
        i = entry.line - 1
        lines = self._with_ids()
        obj = dict(lines[i].obj or {})
        for key in remove:
            obj.pop(key, None)
        obj.update(set_fields)
        lines[i] = with_body(lines[i], obj)
        self._write(lines)
        return self.get(entry_id)

    def update(self, entry_id: str, **changes: Any) -> EpisodicEntry:
        """Edit summary/detail/lesson/type/tags/importance/ts (validated like a new entry)."""
        allowed = {"summary", "type", "detail", "lesson", "tags", "importance", "ts"}
        unknown = set(changes) - allowed
        if unknown:
            raise MemoryInputError(f"cannot edit {', '.join(sorted(unknown))}")
        current = self.get(entry_id)
        draft = EpisodicDraft(
            summary=changes.get("summary", current.summary),
            type=changes.get("type", current.type),
            detail=changes.get("detail", current.detail),
            lesson=changes.get("lesson", current.lesson),
            tags=tuple(changes.get("tags", current.tags)),
            importance=changes.get("importance", current.importance),
            ts=changes.get("ts", current.ts),
        ).validated()
        values = {
            "summary": draft.summary,
            "type": draft.type,
            "detail": draft.detail,
            "lesson": draft.lesson,
            "tags": list(draft.tags),
            "importance": draft.importance,
            "ts": draft.ts,
        }
        return self.change(entry_id, {k: values[k] for k in changes})

    def archive(self, entry_id: str, now: datetime) -> EpisodicEntry:
        entry = self.get(entry_id)
        if entry.archived:
            return entry
        return self.change(entry_id, {"archived": True, "archived_at": iso(now)})

    def restore(self, entry_id: str, now: datetime) -> EpisodicEntry:
        """Back from the archive, refreshed: it was wanted again, so its decay starts again."""
        entry = self.get(entry_id)
        if not entry.archived and "archived_at" not in entry.fields:
            return entry
        return self.change(entry_id, {"refreshed_at": iso(now)}, remove=("archived", "archived_at"))

    def pin(self, entry_id: str, pinned: bool = True) -> EpisodicEntry:
        """Pinned: never decays (``"pinned":true``); unpinned: the key is removed."""
        entry = self.get(entry_id)
        if entry.pinned == pinned:
            return entry
        return self.change(entry_id, {"pinned": True}) if pinned else self.change(entry_id, {}, remove=("pinned",))

    def refresh(self, entry_id: str, now: datetime) -> EpisodicEntry:
        """Its strength starts again: decay counts from ``now``."""
        return self.change(entry_id, {"refreshed_at": iso(now)})

    def archive_many(self, entry_ids: Iterable[str], now: datetime) -> list[EpisodicEntry]:
        """Archive several entries in one write."""
        ids = list(dict.fromkeys(entry_ids))
        targets = [e for e in (self.get(i) for i in ids) if not e.archived]
        if not targets:
            return [self.get(i) for i in ids]
        lines = self._with_ids()
        stamp = iso(now)
        for entry in targets:
            i = entry.line - 1
            lines[i] = with_body(
                lines[i], {**(lines[i].obj or {}), "archived": True, "archived_at": stamp}
            )
        self._write(lines)
        return [self.get(i) for i in ids]

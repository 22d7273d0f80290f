"""associations.jsonl: weighted, undirected links between memories.

    {"a":"ep-1a2b3c4d","b":"ep-5e6f7a8b","weight":0.5,"ts":"2026-04-02T09:15:00+00:00"}

Unlinking never deletes: the link's line gets ``"archived":true,"archived_at":ISO`` like any
other memory, so the history of a link stays in the file. Lines that are not links (other
JSON objects) are kept and ignored; lines that are not JSON are kept and reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from indexer.util.frozen_record import frozen_record, not_compared
from indexer.memory.errors import MemoryInputError, MemoryNotFoundError, Problem
from indexer.memory.jsonl import JsonlFile, JsonlLine, new_line, with_body
from indexer.memory.timeutil import iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_WEIGHT = 0.5


@frozen_record
class Link:
    a: str
    b: str
    weight: float
    ts: str | None
    archived: bool
    line: int
    fields: Mapping[str, Any] = not_compared(factory=dict)

    def touches(self, memory_id: str) -> bool:
        return memory_id in (self.a, self.b)

    def other(self, memory_id: str) -> str:
        return self.b if self.a == memory_id else self.a

    def same_pair(self, a: str, b: str) -> bool:
        return {self.a, self.b} == {a, b}

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "weight": self.weight,
            "ts": self.ts,
            "archived": self.archived,
            "line": self.line,
        }


def _link(obj: Mapping[str, Any], line: int) -> Link | None:
    a, b = obj.get("a"), obj.get("b")
    if not isinstance(a, str) or not isinstance(b, str):
        return None
    try:
        weight = float(obj.get("weight", DEFAULT_WEIGHT))
    except (TypeError, ValueError):
        weight = DEFAULT_WEIGHT
    ts = obj.get("ts")
    return Link(a, b, weight, ts if isinstance(ts, str) else None,
                obj.get("archived") is True, line, dict(obj))


class AssociationLog:
    def __init__(self, path: Path):
        self.file = JsonlFile.load(path)
        self._index()

    @property
    def path(self) -> Path:
        return self.file.path

    def is_stale(self) -> bool:
        return self.file.is_stale()

    def _index(self) -> None:
        self._links = [
            link
            for i, line in enumerate(self.file.lines)
            if line.obj is not None and (link := _link(line.obj, i + 1)) is not None
        ]

    def problems(self) -> list[Problem]:
        return self.file.problems()

    def links(self, memory_id: str | None = None, *, include_archived: bool = False) -> list[Link]:
        return [
            link
            for link in self._links
            if (include_archived or not link.archived)
            and (memory_id is None or link.touches(memory_id))
        ]

    def edge_counts(self) -> dict[str, int]:
        """Per memory id, how many distinct other memories it is linked to (active links)."""
        neighbours: dict[str, set[str]] = {}
        for link in self.links():
            if link.a == link.b:
                continue
            neighbours.setdefault(link.a, set()).add(link.b)
            neighbours.setdefault(link.b, set()).add(link.a)
        return {k: len(v) for k, v in neighbours.items()}

    def link(self, a: str, b: str, now: datetime, weight: float = DEFAULT_WEIGHT) -> Link:
        """Add a link, or set the weight of the existing active link between a and b."""
        if a == b:
            raise MemoryInputError("a memory cannot be linked to itself")
        if not 0.0 <= weight <= 1.0:
            raise MemoryInputError(f"weight must be between 0 and 1, not {weight}")
        lines: list[JsonlLine] = list(self.file.lines)
        for existing in self.links():
            if existing.same_pair(a, b):
                if existing.weight == weight:
                    return existing
                i = existing.line - 1
                lines[i] = with_body(lines[i], {**(lines[i].obj or {}), "weight": weight})
                self.file.write(lines)
                self._index()
                return next(x for x in self.links() if x.line == existing.line)
        lines.append(new_line({"a": a, "b": b, "weight": weight, "ts": iso(now)}))
        self.file.write(lines)
        self._index()
        return self._links[-1]

    def unlink(self, a: str, b: str, now: datetime) -> list[Link]:
        """Archive every active link between a and b; returns them (archived)."""
        targets = [x for x in self.links() if x.same_pair(a, b)]
        if not targets:
            raise MemoryNotFoundError(f"no link between {a} and {b}")
        lines = list(self.file.lines)
        for link in targets:
            i = link.line - 1
            lines[i] = with_body(
                lines[i], {**(lines[i].obj or {}), "archived": True, "archived_at": iso(now)}
            )
        self.file.write(lines)
        self._index()
        wanted = {x.line for x in targets}
        return [x for x in self._links if x.line in wanted]

"""retrievals.jsonl: an append-only log of memories returned by ``threadback memory search``.

One line per returned entry per search: ``{"ts":ISO,"id":"ep-...","query":"..."}``. It lives
in the memory folder (not the index), so retrieval counts survive an index rebuild. Lines we
cannot read are skipped and reported; the file is never rewritten.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from indexer.util.fileio import append_line
from indexer.memory.errors import Problem
from indexer.memory.jsonl import ENCODING, ERRORS, dump_obj, parse_line
from indexer.memory.timeutil import iso


class RetrievalLog:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.counts: Counter[str] = Counter()
        self._problems: list[Problem] = []
        self.reload()

    def reload(self) -> None:
        self.counts = Counter()
        self._problems = []
        try:
            fh = open(self.path, encoding=ENCODING, errors=ERRORS, newline="")
        except FileNotFoundError:
            return
        with fh:
            for n, raw in enumerate(fh, 1):
                line = parse_line(raw)
                if line.error:
                    self._problems.append(Problem(self.path, n, line.error, line.body))
                elif line.obj is not None and isinstance(line.obj.get("id"), str):
                    self.counts[line.obj["id"]] += 1

    def problems(self) -> list[Problem]:
        return list(self._problems)

    def count(self, memory_id: str) -> int:
        return self.counts.get(memory_id, 0)

    def record(self, memory_ids: Iterable[str], query: str, now: datetime) -> None:
        stamp = iso(now)
        for memory_id in memory_ids:
            append_line(self.path, dump_obj({"ts": stamp, "id": memory_id, "query": query}))
            self.counts[memory_id] += 1

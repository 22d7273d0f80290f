"""Score session search on the labelled recall set (tests/data/recall_search/queries.jsonl).

Shared by ``bench/quality/score.py`` (prints the table) and ``tests/core/search/test_search_quality.py``
(holds a floor), so both count the same way. A query is a hit at rank k when the k-th session
``Index.search(..., by_session=True)`` returns is the labelled one (its id starts with the
label: corpus labels are id prefixes). An empty answer is one with no session at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
QUERIES = DATA / "recall_search" / "queries.jsonl"
LOGS = DATA / "recall_search" / "logs"
CORPUS = DATA / "corpus"
GROUPS = ("exact", "paraphrase", "wrong-detail", "typo", "stack-trace", "output", "cjk-sentence", "zh-variant",
          "cross-language", "meaning")


@dataclass(frozen=True, slots=True)
class Labelled:
    query: str
    session: str  # a session id, or a prefix of one
    group: str
    lang: str
    split: str


@dataclass(frozen=True, slots=True)
class Outcome:
    item: Labelled
    rank: int | None  # 1-based, None when not in the answer
    empty: bool


def load(split: str = "all") -> list[Labelled]:
    rows = [json.loads(line) for line in QUERIES.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = [Labelled(r["query"], r["session"], r["group"], r["lang"], r["split"]) for r in rows]
    return [i for i in items if split == "all" or i.split == split]


def roots(extra: dict[str, list[Path]] | None = None) -> dict[str, list[Path]]:
    """The agent roots of the labelled sessions: the real corpus and the written ones."""
    found = {
        "claude-code": [CORPUS / "claude-code" / "projects", LOGS / "claude-code" / "projects"],
        "codex": [CORPUS / "codex" / "sessions", LOGS / "codex" / "sessions"],
        "pi": [CORPUS / "pi" / "sessions"],
    }
    for agent, paths in (extra or {}).items():
        found.setdefault(agent, []).extend(paths)
    return found


def outcome(item: Labelled, session_ids: list[str]) -> Outcome:
    rank = next((k for k, sid in enumerate(session_ids, 1) if sid.startswith(item.session)), None)
    return Outcome(item, rank, not session_ids)


def score(items: Iterable[Labelled], answer: Callable[[str], list[str]]) -> list[Outcome]:
    """``answer``: a query to the session ids found, best first."""
    return [outcome(item, answer(item.query)) for item in items]


@dataclass(frozen=True, slots=True)
class Figures:
    n: int
    hit1: int
    hit3: int
    mrr: float
    empty: int

    def row(self, name: str) -> str:
        if not self.n:
            return f"{name:<16} {0:>4}"
        return (f"{name:<16} {self.n:>4}  hit@1 {self.hit1:>3} ({self.hit1 / self.n:>4.0%})  "
                f"hit@3 {self.hit3:>3} ({self.hit3 / self.n:>4.0%})  MRR {self.mrr:.3f}  empty {self.empty:>3}")


def figures(outcomes: list[Outcome]) -> Figures:
    n = len(outcomes)
    return Figures(
        n,
        sum(o.rank == 1 for o in outcomes),
        sum(o.rank is not None and o.rank <= 3 for o in outcomes),
        sum(1 / o.rank for o in outcomes if o.rank) / n if n else 0.0,
        sum(o.empty for o in outcomes),
    )


def table(outcomes: list[Outcome]) -> str:
    lines = [figures(outcomes).row("all")]
    for group in GROUPS:
        part = [o for o in outcomes if o.item.group == group]
        if part:
            lines.append(figures(part).row(group))
    for lang in ("en", "zh", "ja"):
        part = [o for o in outcomes if o.item.lang == lang]
        if part:
            lines.append(figures(part).row("lang " + lang))
    return "\n".join(lines)

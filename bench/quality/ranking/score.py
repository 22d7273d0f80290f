"""Session-level ranking figures over the labelled queries: hit@1, hit@3, MRR and refusals.

Pure logic, no index: ``evaluate`` takes any function from query text to ranked sessions, so a
test can hold a floor on the real search (``adapter.session_ranker``) or check this module with a
hand-made ranking. A result counts for a query when its session, or the parent of a subagent
session, is one of the sessions where that work really happened. Results from one resumable
session (a parent and its subagents) share one rank. A refused query is a miss at every depth.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

QUERIES = Path(__file__).with_name("queries.jsonl")
GROUPS = ("command", "error", "file", "word", "split", "paraphrase", "english", "chinese", "japanese", "syntax")
LANGS = ("en", "zh-Hant", "zh-Hans", "ja")


@dataclass(frozen=True)
class RankedSession:
    """One result as the user sees it: the session hit, and its parent for a subagent."""

    session_id: str
    parent_session_id: str | None = None


class Refused(Exception):
    """The search refused the query (a ``QueryError``) or failed on it."""


@dataclass(frozen=True)
class LabelledQuery:
    query: str
    group: str
    lang: str
    relevant: frozenset[str]
    note: str = ""


@dataclass(frozen=True)
class Outcome:
    item: LabelledQuery
    rank: int | None  # 1-based session rank of the first relevant session; None = not found
    refusal: str | None = None  # the search's message when it refused the query
    top: tuple[str, ...] = ()  # the first few sessions returned, for reading misses

    def hit(self, k: int) -> bool:
        return self.rank is not None and self.rank <= k


@dataclass(frozen=True)
class Figures:
    queries: int
    hit1: float
    hit3: float
    mrr: float
    refusals: int


class QueryFileError(ValueError):
    """queries.jsonl has a line the scorer cannot use; the message names the line."""


def load_queries(path: Path = QUERIES) -> list[LabelledQuery]:
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            item = LabelledQuery(str(row["query"]), str(row["group"]), str(row.get("lang", "")),
                                 frozenset(str(s) for s in row["relevant"]), str(row.get("note", "")))
        except (ValueError, KeyError, TypeError) as exc:
            raise QueryFileError(f"{path.name}:{n}: not a labelled query ({exc})") from exc
        if not item.query.strip() or not item.relevant:
            raise QueryFileError(f"{path.name}:{n}: a labelled query needs text and at least one relevant session")
        items.append(item)
    return items


def first_relevant_rank(ranked: Iterable[RankedSession], relevant: frozenset[str]) -> int | None:
    seen: list[str] = []
    for result in ranked:
        resumable = result.parent_session_id or result.session_id
        if resumable not in seen:
            seen.append(resumable)
        if result.session_id in relevant or result.parent_session_id in relevant:
            return seen.index(resumable) + 1
    return None


def evaluate(queries: Sequence[LabelledQuery], rank: Callable[[str], list[RankedSession]],
             keep_top: int = 3) -> list[Outcome]:
    outcomes = []
    for item in queries:
        try:
            ranked = rank(item.query)
        except Refused as exc:
            outcomes.append(Outcome(item, None, refusal=str(exc) or "refused"))
            continue
        top: list[str] = []
        for r in ranked:
            resumable = r.parent_session_id or r.session_id
            if resumable not in top:
                top.append(resumable)
            if len(top) == keep_top:
                break
        outcomes.append(Outcome(item, first_relevant_rank(ranked, item.relevant), top=tuple(top)))
    return outcomes


def figures(outcomes: Sequence[Outcome]) -> Figures:
    n = len(outcomes)
    if not n:
        return Figures(0, 0.0, 0.0, 0.0, 0)
    return Figures(
        queries=n,
        hit1=sum(o.hit(1) for o in outcomes) / n,
        hit3=sum(o.hit(3) for o in outcomes) / n,
        mrr=sum(1 / o.rank for o in outcomes if o.rank) / n,
        refusals=sum(o.refusal is not None for o in outcomes),
    )


def breakdown(outcomes: Sequence[Outcome], by: str = "group") -> dict[str, Figures]:
    """Figures per group (or per ``lang``) in a stable order, then ``all``."""
    order = GROUPS if by == "group" else LANGS
    keys = [k for k in order if any(getattr(o.item, by) == k for o in outcomes)]
    keys += sorted({getattr(o.item, by) for o in outcomes} - set(keys))
    table = {k: figures([o for o in outcomes if getattr(o.item, by) == k]) for k in keys}
    table["all"] = figures(outcomes)
    return table


def format_table(table: dict[str, Figures], title: str = "group") -> str:
    lines = [f"{title:<12}{'queries':>8}{'hit@1':>9}{'hit@3':>9}{'MRR':>8}{'refused':>9}"]
    for key, f in table.items():
        if key == "all":
            lines.append("-" * len(lines[0]))
        lines.append(f"{key:<12}{f.queries:>8}{f.hit1:>9.1%}{f.hit3:>9.1%}{f.mrr:>8.3f}{f.refusals:>9}")
    return "\n".join(lines)


def format_misses(outcomes: Sequence[Outcome], describe: Callable[[str], str]) -> str:
    """Every query whose relevant session is not first: what was expected, what came instead."""
    lines = []
    for o in outcomes:
        if o.hit(1):
            continue
        where = f"refused: {o.refusal}" if o.refusal else (f"rank {o.rank}" if o.rank else "not found")
        lines.append(f"[{o.item.group}] {o.item.query!r}  {where}")
        lines += [f"    want {describe(s)}" for s in sorted(o.item.relevant)]
        lines += [f"    got  {describe(s)}" for s in o.top]
    return "\n".join(lines)

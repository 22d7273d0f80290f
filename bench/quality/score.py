"""Recall quality of session search on the labelled set, by group and split. Prints figures.

    python bench/quality/score.py                          # this checkout, held-out and train apart
    python bench/quality/score.py --code /tmp/before       # another checkout (git archive REV | tar -x -C DIR)
    python bench/quality/score.py --distractors /tmp/logs  # with a generated history indexed beside
    python bench/quality/score.py --misses                 # also list what was not first

The labelled sessions (the real corpus and tests/data/recall_search/logs) are indexed into
``--db`` (built once, reused); ``--distractors`` adds a Claude Code tree made by
``bench/speed/bench_index.py``'s generator (``--make-distractors MB`` writes one), so the right
session must win against a few hundred MB of other history. Each query is asked as
``search --sessions`` asks it (``Index.search(by_session=True, limit=20)``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "support")]

from search_quality import Outcome, load, roots, score, table  # noqa: E402


def build(db: Path, distractors: Path | None) -> None:
    from indexer import Index, only_roots

    extra = {"claude-code": [distractors / "claude"]} if distractors else None
    started = time.perf_counter()
    with Index(db) as index:
        summary = index.update(only_roots(roots(extra)), now=time.time())
    print(f"indexed {summary.messages_added:,} messages in {time.perf_counter() - started:.1f} s -> {db}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--code", type=Path, default=ROOT, help="the checkout whose indexer answers")
    ap.add_argument("--db", type=Path, default=None)
    ap.add_argument("--distractors", type=Path, default=None, help="a generated log tree indexed beside")
    ap.add_argument("--make-distractors", type=int, default=0, metavar="MB")
    ap.add_argument("--misses", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(args.code))
    if args.make_distractors:
        sys.path.insert(1, str(ROOT))
        from bench.speed.bench_index import generate

        size = generate(args.distractors, args.make_distractors, max(100, args.make_distractors * 10))
        print(f"wrote {size / 1e6:.0f} MB of distractor logs to {args.distractors}")
    db = args.db or Path("/tmp") / ("recall-quality-distract.sqlite3" if args.distractors else "recall-quality.sqlite3")
    if not db.exists():
        build(db, args.distractors)
    from indexer import Index

    times: list[float] = []
    with Index(db, readonly=True) as index:
        def answer(query: str) -> list[str]:
            t = time.perf_counter()
            result = index.search(query, limit=20, by_session=True, evidence=1)
            times.append((time.perf_counter() - t) * 1000)
            return [s.session.session_id for s in result.sessions]

        for split in ("heldout", "train"):
            outcomes = score(load(split), answer)
            print(f"\n== {split} ({len(outcomes)} queries) code={args.code}")
            print(table(outcomes))
            if args.misses:
                _print_misses(outcomes)
    times.sort()
    print(f"\nlatency ms: p50 {statistics.median(times):.1f}  p90 {times[int(len(times) * 0.9)]:.1f}  max {times[-1]:.1f}")


def _print_misses(outcomes: list[Outcome]) -> None:
    for o in outcomes:
        if o.rank != 1:
            print(f"  {o.item.group:<14} rank={o.rank} {'EMPTY ' if o.empty else ''}{o.item.query[:90]!r}")


if __name__ == "__main__":
    main()

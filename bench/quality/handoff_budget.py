"""Handoff briefs against the whole transcript, in tokens. Prints figures; asserts nothing.

    python bench/quality/handoff_budget.py              # every top-level session of the corpus
    python bench/quality/handoff_budget.py --budget 800

For each session with at least one user turn: the brief's estimated tokens
(``indexer.provenance.handoff.estimate_tokens``) against every message's (text and tool
arguments), and the time to build it. The budget (``BUDGET_TOKENS``) is what the brief may take.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support")]

from conftest import corpus_roots  # noqa: E402
from indexer import Index  # noqa: E402
from indexer.provenance.handoff import BUDGET_TOKENS, build_brief  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=int, default=BUDGET_TOKENS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Index(Path(tmp) / "corpus.sqlite3") as index:
        index.update(corpus_roots(), now=time.time(), archive=False)
        rows = []
        for session in index.sessions(limit=None):
            start = time.perf_counter()
            brief = build_brief(index, session, budget=args.budget)
            rows.append((brief.tokens, brief.transcript_tokens, time.perf_counter() - start))
    briefs = [r[0] for r in rows]
    whole = [r[1] for r in rows]
    ratios = [b / w for b, w, _ in rows if w]
    print(f"sessions {len(rows)}  budget {args.budget} tokens")
    print(f"brief tokens: median {statistics.median(briefs):.0f}  max {max(briefs)}  over budget {sum(b > args.budget for b in briefs)}")
    print(f"transcript tokens: median {statistics.median(whole):.0f}  max {max(whole)}  total {sum(whole)}")
    print(f"brief / transcript: median {statistics.median(ratios):.1%}  (all briefs together: {sum(briefs) / sum(whole):.1%})")
    print(f"build time: median {statistics.median(r[2] for r in rows) * 1000:.0f} ms  max {max(r[2] for r in rows) * 1000:.0f} ms")


if __name__ == "__main__":
    main()

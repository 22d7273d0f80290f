"""Ranking quality of session search on the labelled set in bench/quality/ranking/. Prints figures.

    python bench/quality/rank_eval.py                 # hit@1, hit@3, MRR, refusals by group and language
    python bench/quality/rank_eval.py --misses        # and every query whose session did not come first
    python bench/quality/rank_eval.py --group chinese --misses
    python bench/quality/rank_eval.py --option sessions=true   # pass keyword arguments to Index.search
    python bench/quality/rank_eval.py --baseline      # the same set ranked by a grep-like reference

Indexes tests/data/corpus (the real logs) and bench/quality/ranking/sessions (hand-written logs) into a
temporary directory, then asks ``Index.search`` each query of bench/quality/ranking/queries.jsonl, the
same call ``threadback search`` makes. See bench/quality/ranking/README.md for what the set measures.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.quality.ranking.adapter import CORPUS, SESSIONS, build_index, session_ranker  # noqa: E402
from bench.quality.ranking.baseline import grep_ranker  # noqa: E402
from bench.quality.ranking.score import (  # noqa: E402
    QUERIES,
    QueryFileError,
    breakdown,
    evaluate,
    format_misses,
    format_table,
    load_queries,
)


def parse_option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--option wants KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--queries", type=Path, default=QUERIES, help="labelled queries (JSON lines)")
    p.add_argument("--corpus", type=Path, default=CORPUS, help="the real-log corpus")
    p.add_argument("--sessions", type=Path, default=SESSIONS, help="the hand-written sessions")
    p.add_argument("--group", action="append", default=[], help="only these groups (repeatable)")
    p.add_argument("--misses", action="store_true", help="list every query whose relevant session is not first")
    p.add_argument("--json", action="store_true", help="print figures and per-query outcomes as JSON")
    p.add_argument("--option", action="append", type=parse_option, default=[], metavar="KEY=VALUE",
                   help="extra keyword argument for Index.search (value read as JSON when it parses)")
    p.add_argument("--baseline", action="store_true",
                   help="rank with the grep-like reference (bench/quality/ranking/baseline.py) instead of Index.search")
    args = p.parse_args(argv)

    try:
        queries = load_queries(args.queries)
    except (OSError, QueryFileError) as exc:
        print(f"rank_eval: {exc}", file=sys.stderr)
        return 2
    if args.group:
        unknown_groups = sorted(set(args.group) - {q.group for q in queries})
        if unknown_groups:
            print(f"rank_eval: no queries in group {', '.join(unknown_groups)}", file=sys.stderr)
            return 2
        queries = [q for q in queries if q.group in args.group]

    with tempfile.TemporaryDirectory(prefix="threadback-rankset-") as tmp:
        started = time.perf_counter()
        index = build_index(Path(tmp) / "index.sqlite3", args.corpus, args.sessions)
        indexed = time.perf_counter() - started
        known = {s.session_id for s in index.sessions(limit=None, parent=...)}
        unknown = sorted({s for q in queries for s in q.relevant} - known)
        if unknown:
            print(f"rank_eval: labels name sessions the index does not have: {', '.join(unknown)}", file=sys.stderr)
            return 2
        started = time.perf_counter()
        ranker = grep_ranker(index) if args.baseline else session_ranker(index, options=dict(args.option))
        outcomes = evaluate(queries, ranker)
        searched = time.perf_counter() - started
        describe = _describer(index)
        if args.json:
            print(json.dumps({
                "by_group": {k: asdict(v) for k, v in breakdown(outcomes).items()},
                "by_lang": {k: asdict(v) for k, v in breakdown(outcomes, by="lang").items()},
                "queries": [{"query": o.item.query, "group": o.item.group, "rank": o.rank,
                             "refusal": o.refusal, "top": list(o.top)} for o in outcomes],
            }, ensure_ascii=False, indent=1))
        else:
            ranked_by = "grep-like baseline" if args.baseline else "Index.search"
            print(f"{len(queries)} queries over {len(known)} sessions, ranked by {ranked_by} "
                  f"(indexed in {indexed:.1f} s, searched in {searched:.1f} s)\n")
            print(format_table(breakdown(outcomes)))
            print()
            print(format_table(breakdown(outcomes, by="lang"), title="language"))
            if args.misses:
                print()
                print(format_misses(outcomes, describe) or "no misses")
        index.close()
    return 0


def _describer(index):
    def describe(session_id: str) -> str:
        s = index.session(session_id)
        if s is None:
            return session_id
        title = " ".join((s.title or "").split())
        return f"{s.session_id[:8]} {s.agent}/{s.project_name or '?'}: {title[:70]}"
    return describe


if __name__ == "__main__":
    raise SystemExit(main())

"""Search latency of two checkouts on the same index, interleaved. Prints figures.

    python bench/speed/ab_search.py --db INDEX --before DIR --after DIR [--runs 5] [--rounds 3] QUERY...
    python bench/speed/ab_search.py --db NEW --before-db OLD --before DIR ...   # a checkout whose schema differs

Each round runs every query (message view, then session view as the app asks) in a fresh
process per checkout, before then after, so the machine's drift hits both alike; each figure is
the median over rounds of the warm median of ``--runs`` calls with ``limit=50``. A checkout is
a directory holding ``indexer/`` (``git archive REV | tar -x -C DIR``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ONE = r'''
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from indexer import Index
index = Index(sys.argv[2], readonly=True)
out = {}
for query in json.loads(sys.argv[4]):
    for by_session in (False, True):
        kwargs = {"by_session": True, "evidence": 1} if by_session else {}
        result = index.search(query, limit=50, **kwargs)
        times = []
        for _ in range(int(sys.argv[3])):
            t = time.perf_counter()
            result = index.search(query, limit=50, **kwargs)
            times.append((time.perf_counter() - t) * 1000)
        out[f"{by_session}|{query}"] = [statistics.median(times), result.total]
print(json.dumps(out))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--before-db", type=Path, help="the index the before checkout reads (default: --db)")
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=Path(__file__).resolve().parents[2])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("queries", nargs="+")
    args = ap.parse_args()
    rounds: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(args.rounds):
        for name in rounds:
            db = args.before_db if name == "before" and args.before_db else args.db
            done = subprocess.run([sys.executable, "-c", ONE, str(getattr(args, name)), str(db), str(args.runs),
                                   json.dumps(args.queries)], capture_output=True, text=True, check=True,
                                  cwd=getattr(args, name))  # its own ``indexer``, not the one beside this script
            rounds[name].append(json.loads(done.stdout))
    print(f"warm p50 ms, median of {args.rounds} interleaved rounds of {args.runs}")
    for query in args.queries:
        for by_session in (False, True):
            key = f"{by_session}|{query}"
            before, after = (statistics.median(r[key][0] for r in rounds[n]) for n in ("before", "after"))
            totals = f"{rounds['before'][0][key][1]:,} / {rounds['after'][0][key][1]:,}"
            print(f"{query!r:42} {'sessions' if by_session else 'messages':9} before {before:7.1f}  after {after:7.1f}"
                  f"   (matches {totals})")


if __name__ == "__main__":
    main()

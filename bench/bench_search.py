"""Search latency per query class, in-process, on an index built by bench_index.py. Prints figures.

    python bench/bench_search.py --db /tmp/threadback-bench/index.sqlite3 [--runs 30]

Each class is timed in the message view (``Index.search``) and the session view
(``by_session=True``: every word in one session, sessions with evidence): warm median and p95
of ``--runs`` calls with ``limit=50``, as the app asks. The target (issue 13, 18): p50 under
50 ms at 1 GB for every class.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from indexer import Index  # noqa: E402

# The generated tree's words (bench_index.py): English from a small vocabulary, Traditional
# Chinese, tool lines `grep -rn WORD src/`, 40 projects, sessions from 2026-01-01 on.
CLASSES = (
    ("common word", "timeout"),
    ("rare word, common trigrams", "bletter"),
    ("3-char CJK", "資料庫"),
    ("2-char CJK", "驗收"),
    ("Simplified for Traditional", "资料库"),
    ("phrase", '"websocket test"'),
    ("phrase, rare, of common words", '"retry the connection"'),
    ("OR", "flamegraph OR profiler"),
    ("filtered agent/project/time", "timeout agent:claude project:proj3 since:2026-01-02"),
    ("pasted command", "grep -rn timeout src/"),
    ("two words", "websocket flamegraph"),
    ("English + CJK", "deploy 驗收"),
)


def timed(index: Index, query: str, runs: int, **kwargs) -> tuple[float, float, int]:
    index.search(query, limit=50, **kwargs)  # warm
    times, total = [], 0
    for _ in range(runs):
        t = time.perf_counter()
        result = index.search(query, limit=50, **kwargs)
        times.append((time.perf_counter() - t) * 1000)
        total = result.total
    times.sort()
    return statistics.median(times), times[max(0, int(len(times) * 0.95) - 1)], total


def print_latencies(index: Index, runs: int = 30) -> None:
    print(f"{'class':<28} {'query':<52} {'messages p50/p95 ms':>20} {'sessions p50/p95 ms':>20}")
    for label, query in CLASSES:
        m50, m95, mtotal = timed(index, query, runs)
        s50, s95, stotal = timed(index, query, runs, by_session=True, evidence=1)  # as the app asks
        print(f"{label:<28} {query!r:<52} {m50:8.1f} / {m95:6.1f}  {s50:8.1f} / {s95:6.1f}"
              f"   ({mtotal:,} messages, {stotal:,} sessions)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True, help="an index built by bench_index.py")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    index = Index(args.db)
    stats = index.stats()
    print(f"{args.db}: {stats.messages:,} messages, {stats.sessions:,} sessions, {stats.size_bytes / 1e6:,.0f} MB")
    print_latencies(index, args.runs)
    index.close()


if __name__ == "__main__":
    main()

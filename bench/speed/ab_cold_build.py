"""The cold build of several checkouts, interleaved, each paired with the bare-FTS baseline.
Prints figures.

    python bench/speed/ab_cold_build.py --logs TREE/logs --scratch DIR [--rounds 3] NAME=CHECKOUT ...

A tree comes from ``bench_index.py`` or ``scripts/real_tree.py`` (its ``logs``: every agent folder
found there is indexed); a checkout is a directory holding
``indexer/`` and ``bench/`` (``git archive REV | tar -x -C DIR``). Each round builds the index
cold with every checkout in turn (its helper process runs that checkout's code too), then
inserts the same text into a bare trigram table and its CJK bigrams into a bigram table
(``bench_index.fts_only_baseline``, the floor of issue 38): the ratio
per pair is what survives this machine's drift. Also printed: the CPU time of the main process
and of the helper (its children), less sensitive to other work than the wall time, and the peak
resident set of each (``ru_maxrss``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ONE = r'''
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from bench.speed.bench_index import fts_only_baseline
from indexer import Index, only_roots
from indexer.store.connection import remove_index_files
scratch, logs = Path(sys.argv[2]), Path(sys.argv[3])
scratch.mkdir(parents=True, exist_ok=True)
db = scratch / "index.sqlite3"
remove_index_files(db)
index = Index(db)
t = time.perf_counter()
folders = {"claude-code": ["claude", "claude-code"], "codex": ["codex"], "pi": ["pi"]}  # bench_index / real_tree
roots = {agent: [logs / n for n in names if (logs / n).is_dir()] for agent, names in folders.items()}
summary = index.update(only_roots({agent: paths for agent, paths in roots.items() if paths}))
cold = time.perf_counter() - t
messages = index.stats().messages
index.close()
usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
main_cpu, helper_cpu = (u.ru_utime + u.ru_stime for u in usage)
main_mb, helper_mb = (u.ru_maxrss / 1024 for u in usage)
base, _ = fts_only_baseline(db, scratch, with_bigrams=True)
raw = sum(p.stat().st_size for p in logs.rglob("*") if p.is_file())
print(json.dumps({"cold": cold, "base": base, "messages": messages, "main": main_cpu, "helper": helper_cpu,
                  "main_mb": main_mb, "raw_mb": raw / 1e6, "helper_mb": helper_mb,
                  "problems": summary.problems}))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", type=Path, required=True)
    ap.add_argument("--scratch", type=Path, required=True, help="a folder for the indexes (emptied per build)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("checkouts", nargs="+", help="NAME=DIR")
    args = ap.parse_args()
    checkouts = [c.split("=", 1) for c in args.checkouts]
    results: dict[str, list[dict]] = {name: [] for name, _ in checkouts}
    for n in range(1, args.rounds + 1):
        for name, tree in checkouts:
            done = subprocess.run([sys.executable, "-c", ONE, tree, str(args.scratch / name), str(args.logs)],
                                  capture_output=True, text=True, check=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            results[name].append(r)
            print(f"[{n}] {name:10} cold {r['cold']:5.1f} s, baseline {r['base']:5.1f} s: {r['cold'] / r['base']:.2f}x; "
                  f"CPU main {r['main']:5.1f} s, helper {r['helper']:5.1f} s (/wall {(r['main'] + r['helper']) / r['cold']:.2f}); "
                  f"peak RSS main {r['main_mb']:.0f} MB, helper {r['helper_mb']:.0f} MB ({r['messages']:,} messages, "
                  f"{r['raw_mb'] / r['cold']:.1f} MB/s, CPU {(r['main'] + r['helper']) / r['base']:.2f}x the baseline)"
                  + (f"; {'; '.join(r['problems'])}" if r["problems"] else ""), flush=True)
    for name, runs in results.items():
        ratios = [r["cold"] / r["base"] for r in runs]
        print(f"{name:10} median cold {statistics.median(r['cold'] for r in runs):5.1f} s, "
              f"{statistics.median(ratios):.2f}x the baseline ({', '.join(f'{x:.2f}' for x in ratios)}); "
              f"CPU main {statistics.median(r['main'] for r in runs):5.1f} s, "
              f"helper {statistics.median(r['helper'] for r in runs):5.1f} s (CPU "
              f"{statistics.median((r['main'] + r['helper']) / r['base'] for r in runs):.2f}x the baseline), "
              f"{statistics.median(r['raw_mb'] / r['cold'] for r in runs):.1f} MB/s; peak RSS main "
              f"{max(r['main_mb'] for r in runs):.0f} MB, helper {max(r['helper_mb'] for r in runs):.0f} MB")


if __name__ == "__main__":
    main()

"""What search by meaning costs a cold build, and what its vectors weigh. Prints figures.

    python bench/speed/meaning_build.py --logs /tmp/tb-bench/logs --scratch /tmp/meaning-scratch [--rounds 2]

A tree comes from ``bench_index.py`` (its ``logs``). Each round builds the index cold twice, in
fresh processes, meaning off then on (``[meaning] enabled``), so this machine's drift hits both
alike; printed per pair: both wall times and both CPU times (the main process and its helper:
what survives a machine shared with other work), the added share (target: at most +25%), and the
vectors' bytes against the raw logs (target: at most 0.05x), per million messages. Then, on the
last index: an appended session (only its messages are embedded), and search latency.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD_TARGET, SIZE_TARGET = 0.25, 0.05

ONE = r'''
import json, resource, sqlite3, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from indexer import Index, only_roots
from indexer.store.connection import remove_index_files
db, logs = Path(sys.argv[2]), Path(sys.argv[3])
remove_index_files(db)
index = Index(db)
t = time.perf_counter()
summary = index.update(only_roots({"claude-code": [logs / "claude"]}))
cold = time.perf_counter() - t
messages = index.stats().messages
index.close()
conn = sqlite3.connect(db)
have = conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'meaning_blocks'").fetchone()[0]
size = conn.execute("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE 'meaning%'").fetchone()[0] if have else 0
vectors = sum(len(r[0]) // 2 for r in conn.execute("SELECT ids FROM meaning_blocks")) if have else 0
cpu = sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))
print(json.dumps({"cold": cold, "cpu": cpu, "messages": messages, "vector_bytes": size, "vectors": vectors, "problems": summary.problems}))
'''

LATER = r'''
import json, sys, time, random
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from bench.speed.bench_index import claude_session
from indexer import Index, only_roots
from indexer.search.meaning import meaning_hits
db, logs = Path(sys.argv[2]), Path(sys.argv[3])
victim = next(iter(sorted((logs / "claude").rglob("*.jsonl"))))
with victim.open("ab") as fh:
    fh.write(claude_session(random.Random(1), f"append-{time.time_ns()}", "/home/dev/proj0", 4000, time.time()))
index = Index(db)
t = time.perf_counter()
grown = index.update(only_roots({"claude-code": [logs / "claude"]}))
append = time.perf_counter() - t
index.close()
queries = ["the time the db kept saying it was locked", "the build that only broke on Mondays",
           "memory keeps growing in the service", "retry the websocket when the server is slow"]
t = time.perf_counter(); meaning_hits(db, queries[0], 20); first = time.perf_counter() - t
times = []
for q in queries * 3:
    t = time.perf_counter(); meaning_hits(db, q, 20); times.append(time.perf_counter() - t)
import numpy as np
from indexer.vectors.codes import hamming
codes = np.random.default_rng(1).integers(0, 256, size=(1_000_000, 32), dtype=np.uint8)
scan = []
for _ in range(5):
    t = time.perf_counter(); d = hamming(codes, codes[0]); np.argpartition(d, 400)[:400]; scan.append(time.perf_counter() - t)
print(json.dumps({"append": append, "added": grown.messages_added, "first": first, "warm": sorted(times),
                  "scan": sorted(scan)[2]}))
'''


def run(code: str, *args: str, meaning: bool = True) -> dict:
    config = Path(args[1]).with_suffix(".toml")
    config.write_text(f"[meaning]\nenabled = {'true' if meaning else 'false'}\n")
    env = {**os.environ, "THREADBACK_CONFIG": str(config)}
    done = subprocess.run([sys.executable, "-c", code, str(REPO), *args], capture_output=True, text=True, env=env)
    if done.returncode:
        sys.exit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", type=Path, required=True)
    ap.add_argument("--scratch", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    raw = sum(p.stat().st_size for p in args.logs.rglob("*.jsonl"))
    db = args.scratch / "index.sqlite3"
    shares = []
    for n in range(1, args.rounds + 1):
        off = run(ONE, str(db), str(args.logs), meaning=False)
        on = run(ONE, str(db), str(args.logs), meaning=True)
        share = on["cold"] / off["cold"] - 1
        cpu_share = on["cpu"] / off["cpu"] - 1
        shares.append(cpu_share)
        per_million = on["vector_bytes"] / on["messages"] * 1e6
        print(f"[{n}] cold build {raw / 1e6:,.0f} MB, {on['messages']:,} messages ({on['vectors']:,} with a vector): "
              f"meaning off {off['cold']:.1f} s, on {on['cold']:.1f} s = {share:+.0%} wall; CPU (main and helper) "
              f"{off['cpu']:.1f} s -> {on['cpu']:.1f} s = {cpu_share:+.0%} (target <= +{BUILD_TARGET:.0%}); "
              f"vectors {on['vector_bytes'] / 1e6:.1f} MB = {on['vector_bytes'] / raw:.4f}x the raw logs "
              f"(target <= {SIZE_TARGET}x), {per_million / 1e6:.1f} MB per million messages", flush=True)
        if on["problems"]:
            print("   problems:", on["problems"])
    print(f"CPU added to a cold build, median of {len(shares)} pairs: {statistics.median(shares):+.0%} "
          f"(wall times swing with this machine's load; CPU time much less)")
    later = run(LATER, str(db), str(args.logs), meaning=True)
    warm = later["warm"]
    print(f"append one session + update: {later['append'] * 1000:.0f} ms ({later['added']} messages added)")
    print(f"meaning_hits: first in a process {later['first'] * 1000:.0f} ms (model and codes loaded), "
          f"then p50 {statistics.median(warm) * 1000:.0f} ms, max {warm[-1] * 1000:.0f} ms")
    print(f"Hamming distance over 1,000,000 codes and the best 400 of them: {later['scan'] * 1000:.0f} ms (median of 5)")


if __name__ == "__main__":
    main()

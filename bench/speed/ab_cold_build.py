"""The cold build of several checkouts, interleaved, each paired with the bare-FTS baseline.
Prints figures.

    python bench/speed/ab_cold_build.py --logs TREE/logs --scratch DIR [--rounds 3] NAME=CHECKOUT ...

A tree comes from ``bench_index.py`` or ``scripts/real_tree.py`` (its ``logs``: every agent folder
found there is indexed); a checkout is a directory holding
``indexer/`` and ``bench/`` (``git archive REV | tar -x -C DIR``). Each round builds the index
cold with every checkout in turn (its helper process runs that checkout's code too), then
inserts the same searchable text (messages' and tool outputs' lines) into a bare trigram table
and its CJK bigrams into a bigram table (the floor of issue 38, written here so that every
checkout is held to the same one): the ratio
per pair is what survives this machine's drift. Also printed: the CPU time of the main process
and of the helper (its children), less sensitive to other work than the wall time, and the peak
resident set of each (``ru_maxrss``). "Helper" is every child: the parse helper and, on a big
run, the embedding process (``indexer.vectors.build``); run with ``THREADBACK_CONFIG`` naming a
file that holds ``[meaning]`` / ``enabled = false`` to see the parse helper alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ONE = r'''
import json, resource, shutil, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
import sqlite3
from indexer import Index, only_roots
from indexer.store.connection import remove_index_files
from indexer.store.side_file import cjk_bigrams


def floor(index_path, scratch):
    """Seconds (wall, CPU) to insert the index's searchable text (messages' and tool outputs'
    lines) into a bare trigram table, and its CJK bigrams into a bigram table: the same for
    every checkout. Its wall moved 63-77 s between runs of one 1 GB tree (its writes wait on
    the disk); its CPU is what a build's CPU is held against."""
    src = sqlite3.connect(index_path)
    texts = [r[0] for r in src.execute("SELECT text FROM messages WHERE indexed IN (1, 2)")]
    if src.execute("SELECT 1 FROM sqlite_master WHERE name = 'output_excerpts'").fetchone():
        texts += [r[0] for r in src.execute("SELECT text FROM output_excerpts")]
    src.close()
    path = scratch / "baseline.sqlite3"
    remove_index_files(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='trigram')")
    conn.execute("CREATE VIRTUAL TABLE b USING fts5(grams, content='', tokenize='unicode61', detail='none', columnsize=0)")
    start, start_cpu = time.perf_counter(), time.process_time()
    conn.execute("BEGIN")
    for i, text in enumerate(texts, 1):
        conn.execute("INSERT INTO t(rowid, text) VALUES (?, ?)", (i, text))
        if grams := cjk_bigrams(text):
            conn.execute("INSERT INTO b(rowid, grams) VALUES (?, ?)", (i, grams))
        if i % 10000 == 0:
            conn.execute("COMMIT")
            conn.execute("BEGIN")
    conn.execute("COMMIT")
    conn.close()
    return time.perf_counter() - start, time.process_time() - start_cpu


scratch, logs = Path(sys.argv[2]), Path(sys.argv[3])
scratch.mkdir(parents=True, exist_ok=True)
db = scratch / "index.sqlite3"
remove_index_files(db)
# A first build makes the archive too (links, manifests); one kept from the last round would
# leave each log only a check (before round 22 it was kept: rounds after the first cost less).
removing = resource.getrusage(resource.RUSAGE_SELF)
shutil.rmtree(scratch / "archive", ignore_errors=True)
removed = resource.getrusage(resource.RUSAGE_SELF)  # its CPU is not the build's
time.sleep(20)  # removing 100,000 archive files slows the file creation that follows, on this disk
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
main_cpu -= (removed.ru_utime + removed.ru_stime) - (removing.ru_utime + removing.ru_stime)
main_mb, helper_mb = (u.ru_maxrss / 1024 for u in usage)
# Bytes the main process handed to write() (its WAL, checkpoints, the archive's manifests): what
# showed the dedup column's index writing its pages again and again (Linux only).
try:
    written = int(dict(line.split(": ") for line in open("/proc/self/io").read().splitlines())["wchar"])
except (OSError, KeyError, ValueError):
    written = 0
base, base_cpu = floor(db, scratch)
raw = sum(p.stat().st_size for p in logs.rglob("*") if p.is_file())
print(json.dumps({"cold": cold, "base": base, "base_cpu": base_cpu, "messages": messages, "main": main_cpu, "helper": helper_cpu,
                  "main_mb": main_mb, "raw_mb": raw / 1e6, "helper_mb": helper_mb, "written_gb": written / 1e9,
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
            # Run from the checkout: a helper started with ``-m`` finds ``indexer`` in the current
            # folder first unless the checkout starts it with ``-P``.
            done = subprocess.run([sys.executable, "-c", ONE, tree, str(args.scratch.resolve() / name),
                                   str(args.logs.resolve())], capture_output=True, text=True, check=True, cwd=tree)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            results[name].append(r)
            print(f"[{n}] {name:10} cold {r['cold']:5.1f} s, baseline {r['base']:5.1f} s: {r['cold'] / r['base']:.2f}x; "
                  f"CPU main {r['main']:5.1f} s, helper {r['helper']:5.1f} s (/wall {(r['main'] + r['helper']) / r['cold']:.2f}); "
                  f"peak RSS main {r['main_mb']:.0f} MB, helper {r['helper_mb']:.0f} MB, main wrote {r.get('written_gb', 0):.1f} GB "
                  f"({r['messages']:,} messages, "
                  f"{r['raw_mb'] / r['cold']:.1f} MB/s, CPU {(r['main'] + r['helper']) / r['base']:.2f}x the baseline, "
                  f"{(r['main'] + r['helper']) / r['base_cpu']:.2f}x its CPU of {r['base_cpu']:.1f} s)"
                  + (f"; {'; '.join(r['problems'])}" if r["problems"] else ""), flush=True)
    for name, runs in results.items():
        ratios = [r["cold"] / r["base"] for r in runs]
        print(f"{name:10} median cold {statistics.median(r['cold'] for r in runs):5.1f} s, "
              f"{statistics.median(ratios):.2f}x the baseline ({', '.join(f'{x:.2f}' for x in ratios)}); "
              f"CPU main {statistics.median(r['main'] for r in runs):5.1f} s, "
              f"helper {statistics.median(r['helper'] for r in runs):5.1f} s (CPU "
              f"{statistics.median((r['main'] + r['helper']) / r['base'] for r in runs):.2f}x the baseline, "
              f"{statistics.median((r['main'] + r['helper']) / r['base_cpu'] for r in runs):.2f}x its CPU), "
              f"{statistics.median(r['raw_mb'] / r['cold'] for r in runs):.1f} MB/s; peak RSS main "
              f"{max(r['main_mb'] for r in runs):.0f} MB, helper {max(r['helper_mb'] for r in runs):.0f} MB")


if __name__ == "__main__":
    main()

"""What merging the full-text tables' segments does to searches, and what it costs each run.
Prints figures; asserts nothing.

    python bench/speed/bench_merge.py --db /tmp/b1/index.sqlite3 --logs /tmp/b1/logs [--runs 15]

Works on a copy of ``--db`` (both files): prints each FTS5 table's segments and every query class
(``bench_search.py``'s, message view / session view, warm p50 ms), then runs ``threadback index``
on ``--logs`` (nothing new to read) ``--index-runs`` times, printing each run's wall time and the
segments after it (a segment count can stay the same while a merge of two big ones goes on), then the classes again. ``--optimize`` also times one segment a
table (``index --compact``'s merge) on a second copy. Interleaving is not possible here (one
index is changed in place), so run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_search import CLASSES, size_dependent_classes, timed  # noqa: E402

from indexer import Index  # noqa: E402
from indexer.store.fts_merge import index_tables, merge_segments, segment_count  # noqa: E402


def copy_index(db: Path, folder: Path) -> Path:
    target = folder / db.name
    for suffix in ("", ".side"):
        shutil.copy(str(db) + suffix, str(target) + suffix)
    return target


def segments(db: Path) -> str:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    conn.execute("ATTACH ? AS side", (f"file:{db}.side?mode=ro",))
    try:
        return ", ".join(f"{t.split('.')[1]} {segment_count(conn, t)}" for t in index_tables(conn))
    finally:
        conn.close()


def latencies(db: Path, runs: int) -> dict[str, tuple[float, float]]:
    index = Index(db)
    try:
        return {label: (timed(index, query, runs)[0], timed(index, query, runs, by_session=True, evidence=1)[0])
                for label, query in CLASSES + size_dependent_classes(db)}
    finally:
        index.close()


def idle_merged(db: Path, folder: Path, runs: int) -> dict[str, tuple[float, float]]:
    """What the open app does after a build (``tui.index_runner.merge_while_idle``): slices
    until nothing is left. Prints the slices and their time; returns the latencies after."""
    from tui.index_runner import MERGE_PAUSE_SECONDS, MERGE_SLICE_SECONDS

    folder.mkdir()
    copy = copy_index(db, folder)
    index = Index(copy)
    slices, started = 0, time.perf_counter()
    while True:
        slices += 1
        if index.merge_segments(MERGE_SLICE_SECONDS):
            break
    took = time.perf_counter() - started
    index.close()
    print(f"app idle: {slices} slices of {MERGE_SLICE_SECONDS} s, {took:.1f} s of merging "
          f"({took + (slices - 1) * MERGE_PAUSE_SECONDS:.1f} s with the pauses); segments {segments(copy)}")
    return latencies(copy, runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True, help="an index built by bench_index.py")
    ap.add_argument("--logs", type=Path, required=True, help="the tree it was built from")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--index-runs", type=int, default=10, help="index runs with nothing new to read")
    ap.add_argument("--optimize", action="store_true")
    ap.add_argument("--idle", action="store_true", help="also the open app's merging, slice after slice, on a copy")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tb-merge-", dir=args.db.parent) as tmp:
        db = copy_index(args.db, Path(tmp))
        print(f"segments before: {segments(db)}")
        before = latencies(db, args.runs)
        cli = [sys.executable, "-m", "tui.cli", "--db", str(db), "--claude-dir", str(args.logs / "claude"),
               "--codex-dir", str(args.logs / "codex"), "--pi-dir", str(args.logs / "pi"), "index"]
        total = 0.0
        for n in range(1, args.index_runs + 1):
            started = time.perf_counter()
            subprocess.run(cli, cwd=ROOT, check=True, capture_output=True)
            took = time.perf_counter() - started
            total += took
            print(f"index run {n}: {took:.2f} s wall; segments {segments(db)}", flush=True)
        after = latencies(db, args.runs)
        print(f"{args.index_runs} runs, {total:.1f} s wall in all")
        if args.optimize:
            (Path(tmp) / "one").mkdir()
            single = copy_index(args.db, Path(tmp) / "one")
            conn = sqlite3.connect(single, isolation_level=None)
            conn.execute("ATTACH ? AS side", (f"{single}.side",))
            started = time.perf_counter()
            merge_segments(conn, index_tables(conn), seconds=None, optimize=True)
            conn.close()
            print(f"one segment a table: {time.perf_counter() - started:.1f} s; {segments(single)}")
            optimized = latencies(single, args.runs)
        if args.idle:
            idle = idle_merged(args.db, Path(tmp) / "idle", args.runs)
        print(f"\n{'class':<32} {'before':>15} {'merged':>15}" + (f" {'one segment':>15}" if args.optimize else "")
              + (f" {'app idle':>15}" if args.idle else ""))
        for label in before:
            cells = ([before[label], after[label]] + ([optimized[label]] if args.optimize else [])
                     + ([idle[label]] if args.idle else []))
            print(f"{label:<32} " + " ".join(f"{m:6.1f} / {s:5.1f}" for m, s in cells))


if __name__ == "__main__":
    main()

"""Command start-up, as agents and shells feel it: each command a fresh subprocess. Prints
figures; asserts nothing.

    python bench/bench_startup.py --db /tmp/threadback-bench/index.sqlite3 [--runs 30]

Runs are interleaved (bare interpreter, then each command, round after round) so the machine's
drift hits every row alike; the figure that counts is each command's median minus the bare
interpreter's median. Target (issue 18): ``search`` and the hook commands at most bare + 25 ms
+ the query itself (the query's in-process time is printed beside it). ``--imports`` lists the
heaviest modules a command loads (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET_MS = 25
PROMPT_EVENT = {"session_id": "bench000-0000-4000-8000-000000000000", "cwd": "/home/dev/proj1",
                "transcript_path": "/nonexistent/bench.jsonl", "hook_event_name": "UserPromptSubmit",
                "prompt": "add a unit test for the config parser"}


def commands(db: Path, query: str) -> list[tuple[str, list[str], bytes | None]]:
    cli = [sys.executable, "-m", "tui.cli"]
    return [
        ("bare python -c pass", [sys.executable, "-c", "pass"], None),
        ("--help", [*cli, "--help"], None),
        (f"search {query}", [*cli, "--db", str(db), "search", query], None),
        ("search --json", [*cli, "--db", str(db), "search", "--json", query], None),
        ("hook prompt", [*cli, "--db", str(db), "hook", "prompt"], json.dumps(PROMPT_EVENT).encode()),
        ("hook session-start", [*cli, "--db", str(db), "hook", "session-start"],
         json.dumps({**PROMPT_EVENT, "hook_event_name": "SessionStart", "source": "startup"}).encode()),
    ]


def run_rounds(cases: list[tuple[str, list[str], bytes | None]], runs: int, env: dict) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {label: [] for label, _, _ in cases}
    for _ in range(runs):
        for label, argv, stdin in cases:
            t = time.perf_counter()
            subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=ROOT, check=False)
            times[label].append((time.perf_counter() - t) * 1000)
    return times


def query_ms(db: Path, query: str) -> float:
    """The query alone, in-process and warm (what the command adds on top of start-up)."""
    from indexer import Index

    with Index(db, readonly=True) as index:
        index.search(query, limit=20)
        samples = []
        for _ in range(10):
            t = time.perf_counter()
            index.search(query, limit=20)
            samples.append((time.perf_counter() - t) * 1000)
    return statistics.median(samples)


def heaviest_imports(argv: list[str], stdin: bytes | None, env: dict, top: int = 15) -> list[tuple[int, str]]:
    proc = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], input=stdin, capture_output=True,
                          env=env, cwd=ROOT, check=False)
    rows = []
    for line in proc.stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.split("|")
            if not name.startswith("  "):  # top-level imports only: their cumulative time is all of it
                rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True, help="an index built by bench_index.py")
    ap.add_argument("--query", default="timeout")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--imports", action="store_true", help="also list each command's heaviest imports")
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="tb-startup-"))
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config")}
    cases = commands(args.db, args.query)
    times = run_rounds(cases, args.runs, env)
    bare = statistics.median(times[cases[0][0]])
    query = query_ms(args.db, args.query)
    load = " (load average %.1f %.1f %.1f)" % os.getloadavg()
    print(f"start-up, ms: median of {args.runs} interleaved runs{load}; the query alone takes {query:.1f} ms in-process")
    print(f"{'command':<28} {'p50':>7} {'p25':>7} {'p75':>7} {'- bare':>8}  target: bare + {TARGET_MS} ms (+ query for search)")
    for label, _, _ in cases:
        q = statistics.quantiles(times[label], n=4)
        over = statistics.median(times[label]) - bare
        budget = TARGET_MS + (query if label.startswith("search") else 0)
        verdict = "" if label.startswith("bare") else ("  ok" if over <= budget else f"  OVER by {over - budget:.0f} ms")
        print(f"{label:<28} {statistics.median(times[label]):7.1f} {q[0]:7.1f} {q[2]:7.1f} {over:+8.1f}{verdict}")
    if args.imports:
        for label, argv, stdin in cases[1:]:
            print(f"\nheaviest imports of `{label}` (cumulative µs):")
            for micros, name in heaviest_imports(argv, stdin, env):
                print(f"  {micros:>8,}  {name}")


if __name__ == "__main__":
    main()

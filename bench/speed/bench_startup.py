"""Command start-up, as agents and shells feel it: each command a fresh subprocess. Prints
figures; asserts nothing.

    python bench/speed/bench_startup.py --db /tmp/threadback-bench/index.sqlite3 [--runs 30]
        [--installed VENV ...] [--checkout DIR ...] [--imports]

Runs are interleaved (bare interpreter, then each command, round after round) so the machine's
drift hits every row alike; the figure that counts is each command's median minus the bare
interpreter's median. One untimed round first writes the bytecode caches (``PYTHONDONTWRITEBYTECODE``
is dropped for the commands: an installed package has its ``.pyc`` files, so compiling the
sources on every run is not what a user pays).

Two installs can be timed side by side. "editable" is this checkout (``python -m tui.cli`` with
the development venv's interpreter, whose editable-install import hook every interpreter start
pays, bare included). "installed" (``--installed VENV``) is a regular install, as ``pipx install .``
gives: ``VENV/bin/threadback``, run from outside the checkout. Make one with
``python -m venv VENV && VENV/bin/pip install .`` (after a change:
``VENV/bin/pip install --no-deps --force-reinstall .``). ``--checkout DIR`` adds another source
tree run the editable way (e.g. an export of main, for a before/after in the same rounds). Target (issue 18): ``search`` and the hook commands at most bare + 25 ms
+ the query itself (the query's in-process time is printed beside it). ``--imports`` lists the
heaviest modules a command loads (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

TARGET_MS = 25
PROMPT_EVENT = {"session_id": "bench000-0000-4000-8000-000000000000", "cwd": "/home/dev/proj1",
                "transcript_path": "/nonexistent/bench.jsonl", "hook_event_name": "UserPromptSubmit",
                "prompt": "add a unit test for the config parser"}


Case = tuple[str, list[str], bytes | None, Path]  # label, argv, stdin, working directory


def commands(python: str, cli: list[str], db: Path, query: str, cwd: Path, memory: Path, tag: str = "") -> list[Case]:
    """``memory``: a copy of the demo's memory folder (facts, episodes, scratchpad, rules), so one
    session-start row reads real files; the other finds none (a new user)."""
    cases = [
        ("bare python -c pass", [python, "-c", "pass"], None),
        ("--help", [*cli, "--help"], None),
        (f"search {query}", [*cli, "--db", str(db), "search", query], None),
        ("search --json", [*cli, "--db", str(db), "search", "--json", query], None),
        ("hook prompt", [*cli, "--db", str(db), "hook", "prompt"], json.dumps(PROMPT_EVENT).encode()),
        ("hook session-start", [*cli, "--db", str(db), "hook", "session-start"],
         json.dumps({**PROMPT_EVENT, "hook_event_name": "SessionStart", "source": "startup"}).encode()),
        ("hook session-start, memory", [*cli, "--db", str(db), "--memory-dir", str(memory), "hook", "session-start"],
         json.dumps({**PROMPT_EVENT, "hook_event_name": "SessionStart", "source": "startup"}).encode()),
    ]
    return [(f"{label}{tag}", argv, stdin, cwd) for label, argv, stdin in cases]


def run_rounds(cases: list[Case], runs: int, env: dict) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {label: [] for label, _, _, _ in cases}
    for round_number in range(runs + 1):  # round 0 writes the bytecode caches: not timed
        for label, argv, stdin, cwd in cases:
            t = time.perf_counter()
            subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd, check=False)
            if round_number:
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


def heaviest_imports(argv: list[str], stdin: bytes | None, env: dict, cwd: Path,
                     top: int = 15) -> list[tuple[int, str]]:
    proc = subprocess.run(argv, input=stdin, capture_output=True, env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
                          cwd=cwd, check=False)
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
    ap.add_argument("--installed", type=Path, action="append", default=[], metavar="VENV",
                    help="also time a regular install in this venv (its bin/threadback); repeatable")
    ap.add_argument("--checkout", type=Path, action="append", default=[], metavar="DIR",
                    help="also time another source tree with this interpreter; repeatable")
    ap.add_argument("--imports", action="store_true", help="also list each command's heaviest imports")
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="tb-startup-"))
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    db = args.db.resolve()
    memory = home / "memory"
    shutil.copytree(ROOT / "tui" / "demo" / "memory", memory)
    groups: list[tuple[str, list[Case]]] = []
    for n, checkout in enumerate([ROOT, *args.checkout]):
        tag = "" if n == 0 else f" [{n}]"
        groups.append((f"editable{tag}: {checkout}, {sys.executable} -m tui.cli",
                       commands(sys.executable, [sys.executable, "-m", "tui.cli"], db, args.query, checkout.resolve(), memory,
                                tag)))
    for n, venv in enumerate(args.installed, start=1):
        venv = venv.resolve()
        groups.append((f"installed [i{n}]: {venv}/bin/threadback, run from {home}",
                       commands(str(venv / "bin" / "python"), [str(venv / "bin" / "threadback")], db, args.query,
                                home, memory, f" [i{n}]")))
    times = run_rounds([case for _, cases in groups for case in cases], args.runs, env)
    query = query_ms(db, args.query)
    load = " (load average %.1f %.1f %.1f)" % os.getloadavg()
    print(f"start-up, ms: median of {args.runs} interleaved runs{load}; the query alone takes {query:.1f} ms in-process")
    for title, cases in groups:
        bare = statistics.median(times[cases[0][0]])
        print(f"\n{title}")
        print(f"{'command':<34} {'p50':>7} {'p25':>7} {'p75':>7} {'- bare':>8}  target: bare + {TARGET_MS} ms (+ query for search)")
        for label, _, _, _ in cases:
            q = statistics.quantiles(times[label], n=4)
            over = statistics.median(times[label]) - bare
            budget = TARGET_MS + (query if label.startswith("search") else 0)
            verdict = "" if label.startswith("bare") else ("  ok" if over <= budget else f"  OVER by {over - budget:.0f} ms")
            print(f"{label:<34} {statistics.median(times[label]):7.1f} {q[0]:7.1f} {q[2]:7.1f} {over:+8.1f}{verdict}")
    if args.imports:
        for title, cases in groups:
            for label, argv, stdin, cwd in cases[1:]:
                print(f"\nheaviest imports of `{label}` (cumulative µs):")
                for micros, name in heaviest_imports(argv, stdin, env, cwd):
                    print(f"  {micros:>8,}  {name}")


if __name__ == "__main__":
    main()

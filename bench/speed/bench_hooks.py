"""The hooks, timed as the agents run them: each ``threadback hook`` command a fresh subprocess fed
the event JSON on stdin. Prints figures; asserts nothing. Two parts (both by default):

latency: warm p50/p95 against an index of a generated log tree. Target: p95 under 300 ms for
every case. The cases: session-start (rules and memory context), a prompt that does not point at
past work, one that does and finds relevant hits (common words: the relevance bar reads many
candidates), one that does and finds nothing, one that reports an error with no trigger phrase
(the evidence gate searches for it), and Stop (throttled, the usual case after a turn; and once
per interval, when it starts a background index run). Python's own start-up is printed too: it
is most of every figure. Then the same work in-process, once Python and its modules are loaded.

budget: ``hook session-start`` wall time and peak memory on the memory folders issue 12 named:
an empty one, the 8-line YAML alias bomb, and a fact.yml that takes ruamel many seconds (left
out at the default 1 s budget, ``$THREADBACK_HOOK_BUDGET`` unset).

    python bench/speed/bench_hooks.py                       # 100 MB, 1,000 sessions, 40 runs per case
    python bench/speed/bench_hooks.py --part budget --repeat 5
    python bench/speed/bench_hooks.py --part latency --size-mb 500 --files 5000 --runs 60 --out /tmp/tb-hooks
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
sys.path[:0] = [str(ROOT), str(ROOT / "bench" / "speed"), str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "core" / "agents")]

from bench_index import generate  # noqa: E402
from test_trust_attacks import ALIAS_BOMB, THREADBACK, clean_env, run_measured  # noqa: E402

from indexer import Index, only_roots  # noqa: E402
from indexer.agents.refresh import REFRESH_STAMP  # noqa: E402

SESSION = "bench000-0000-4000-8000-000000000000"
FACTS = "".join(f"fact_{i}: the {i}th remembered thing about the deploy pipeline\n" for i in range(40))
LATENCY_TARGET_MS = 300


def event(name: str, **extra: object) -> dict:
    return {"session_id": SESSION, "transcript_path": f"/home/dev/.claude/projects/-home-dev-proj1/{SESSION}.jsonl",
            "cwd": "/home/dev/proj1", "hook_event_name": name, "permission_mode": "default", **extra}


LATENCY_CASES: list[tuple[str, str, dict]] = [
    ("session-start", "session-start", event("SessionStart", source="startup")),
    ("prompt, ordinary", "prompt", event("UserPromptSubmit", prompt="add a unit test for the config parser")),
    ("prompt, recall + hits", "prompt",
     event("UserPromptSubmit", prompt="didn't we fix the websocket timeout in the handler before?")),
    ("prompt, recall, no hit", "prompt",
     event("UserPromptSubmit", prompt="last time we tuned the zqxjv frobnicator, what did we do?")),
    ("prompt, reported error", "prompt",
     event("UserPromptSubmit", prompt="the handler fails with ConnectionRefusedError on the websocket")),
    ("stop, throttled", "refresh", event("Stop", stop_hook_active=False)),
]

BUDGET_CASES = {
    "empty memory": {},
    "alias bomb in fact.yml": {"fact.yml": ALIAS_BOMB},
    "30,000-line fact.yml": {"fact.yml": "".join(f"key{i}: [alpha, beta, {{gamma: {i}}}]\n" for i in range(30000))},
}


def hook_command() -> list[str]:
    script = Path(sys.executable).with_name("threadback")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tui.cli"]


def run_once(argv: list[str], payload: dict, env: dict[str, str]) -> tuple[float, bytes]:
    data = json.dumps(payload).encode()
    started = time.perf_counter()
    proc = subprocess.run(argv, input=data, capture_output=True, env=env, timeout=60)
    elapsed = (time.perf_counter() - started) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()[:500]}")
    return elapsed, proc.stdout


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[max(0, int(round(len(ordered) * 0.95)) - 1)]


# --- latency --------------------------------------------------------------------------------------


def prepare_index(args: argparse.Namespace) -> tuple[Path, Path, Path, dict[str, str]]:
    """The generated tree, its index, a memory folder and the hooks' environment."""
    logs, db, home = args.out / "logs", args.out / "index.sqlite3", args.out / "home"
    if not (args.keep and db.exists()):
        shutil.rmtree(args.out, ignore_errors=True)
        t = time.perf_counter()
        raw = generate(logs, args.size_mb, args.files)
        index = Index(db)
        index.update(only_roots({"claude-code": [logs / "claude"]}))
        stats = index.stats()
        index.close()
        print(f"generated {raw / 1e6:,.0f} MB in {args.files:,} sessions and indexed {stats.messages:,} messages "
              f"in {time.perf_counter() - t:.0f} s")
    memory = args.out / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    (memory / "fact.yml").write_text(FACTS, encoding="utf-8")
    config = args.out / "config.toml"
    config.write_text(f'[roots]\nclaude-code = ["{logs / "claude"}"]\ncodex = []\npi = []\n', encoding="utf-8")
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("THREADBACK_", "CLAUDE_"))}
    env.update({"THREADBACK_DB": str(db), "THREADBACK_HOME": str(home), "THREADBACK_MEMORY_DIR": str(memory),
                "THREADBACK_CONFIG": str(config)})  # no THREADBACK_HOOK_BUDGET: the default budget
    return db, home, memory, env


def bench_latency(args: argparse.Namespace) -> None:
    db, home, memory, env = prepare_index(args)
    argv = hook_command()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other work on the machine shows here)")
    for label, code in (("python -c pass (start-up floor)", "pass"),
                        ("import the hook flow", "import indexer.agents.hooks")):
        base = [run_once([sys.executable, "-c", code], {}, env)[0] for _ in range(args.runs)]
        p50, p95 = percentiles(base)
        print(f"{label:<32} p50 {p50:6.0f} ms   p95 {p95:6.0f} ms")

    (home / REFRESH_STAMP).touch()
    for label, name, payload in LATENCY_CASES:
        for _ in range(3):  # warm the OS cache and the bytecode
            run_once([*argv, "hook", name], payload, env)
        times, size = [], 0
        for _ in range(args.runs):
            if name == "refresh":
                (home / REFRESH_STAMP).touch()
            elapsed, out = run_once([*argv, "hook", name], payload, env)
            times.append(elapsed)
            size = len(out)
        p50, p95 = percentiles(times)
        flag = "" if p95 < LATENCY_TARGET_MS else f"   OVER {LATENCY_TARGET_MS} ms"
        print(f"hook {label:<27} p50 {p50:6.0f} ms   p95 {p95:6.0f} ms   ({size:,} bytes out){flag}")

    spawn = []
    for _ in range(5):
        (home / REFRESH_STAMP).unlink(missing_ok=True)
        spawn.append(run_once([*argv, "hook", "refresh"], LATENCY_CASES[-1][2], env)[0])
        time.sleep(1.0)  # let the background index run finish before the next
    p50, p95 = percentiles(spawn)
    print(f"hook {'stop, starts an index run':<27} p50 {p50:6.0f} ms   p95 {p95:6.0f} ms   (5 runs)")

    # The same work in this process: what the hook does once Python and its modules are loaded.
    os.environ.update(env)
    from indexer.agents import hooks

    for label, name, payload in LATENCY_CASES:
        if name == "refresh":
            continue
        times = []
        for i in range(args.runs + 3):
            started = time.perf_counter()
            hooks.answer(name, payload, db_path=db, memory_dir=str(memory))
            if i >= 3:
                times.append((time.perf_counter() - started) * 1000)
        p50, p95 = percentiles(times)
        print(f"  work inside, {label:<22} p50 {p50:6.1f} ms   p95 {p95:6.1f} ms")


# --- budget ---------------------------------------------------------------------------------------


def bench_budget(repeat: int) -> None:
    for name, files in BUDGET_CASES.items():
        with tempfile.TemporaryDirectory() as scratch:
            base = Path(scratch)
            memory = base / "memory"
            memory.mkdir()
            for file, text in files.items():
                (memory / file).write_text(text, encoding="utf-8")
            env = clean_env(base, THREADBACK_MEMORY_DIR=str(memory))
            env.pop("THREADBACK_HOOK_BUDGET", None)  # the default 1 s budget
            payload = json.dumps({"session_id": "s", "cwd": str(base), "hook_event_name": "SessionStart"})
            times, peaks = [], []
            for _ in range(repeat):
                _, _, _, elapsed, peak = run_measured([str(THREADBACK), "hook", "session-start"],
                                                      input=payload, env=env, cwd=base, timeout=60)
                times.append(elapsed)
                peaks.append(peak)
            print(f"session-start, {name:<26} wall median {statistics.median(times) * 1000:5.0f} ms, "
                  f"max {max(times) * 1000:5.0f} ms; peak RSS {max(peaks)} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("all", "latency", "budget"), default="all")
    ap.add_argument("--size-mb", type=int, default=100, help="latency: size of the generated log tree")
    ap.add_argument("--files", type=int, default=1000, help="latency: sessions in the generated tree")
    ap.add_argument("--runs", type=int, default=40, help="latency: runs per case")
    ap.add_argument("--out", type=Path, default=Path("/tmp/threadback-bench-hooks"))
    ap.add_argument("--keep", action="store_true", help="latency: reuse the generated tree and index")
    ap.add_argument("--repeat", type=int, default=5, help="budget: runs per memory folder")
    args = ap.parse_args()
    if args.part in ("all", "latency"):
        bench_latency(args)
    if args.part in ("all", "budget"):
        if args.part == "all":
            print()
        bench_budget(args.repeat)


if __name__ == "__main__":
    main()

"""Hook latency, warm: each ``threadback hook`` command run as the agents run it (a subprocess fed
the event JSON on stdin) against an index of a generated log tree. Prints p50/p95; asserts nothing.

    python bench/bench_hooks.py                       # 100 MB, 1,000 sessions, 40 runs per case
    python bench/bench_hooks.py --size-mb 500 --files 5000 --runs 60 --out /tmp/tb-hooks

Target: p95 under 300 ms for every case. The cases: session-start (rules and memory context),
a prompt that does not point at past work, one that does and finds relevant hits (common words:
the relevance bar reads many candidates), one that does and finds nothing, one that reports an
error with no trigger phrase (the evidence gate searches for it), and Stop (throttled,
the usual case after a turn; and once per interval, when it starts a background index run).
Python's own start-up is printed too: it is most of every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_index import generate  # noqa: E402

from indexer import Index, only_roots  # noqa: E402
from indexer.agents.refresh import REFRESH_STAMP  # noqa: E402

SESSION = "bench000-0000-4000-8000-000000000000"
FACTS = "".join(f"fact_{i}: the {i}th remembered thing about the deploy pipeline\n" for i in range(40))


def event(name: str, **extra: object) -> dict:
    return {"session_id": SESSION, "transcript_path": f"/home/dev/.claude/projects/-home-dev-proj1/{SESSION}.jsonl",
            "cwd": "/home/dev/proj1", "hook_event_name": name, "permission_mode": "default", **extra}


CASES: list[tuple[str, str, dict]] = [
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=int, default=100)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--out", type=Path, default=Path("/tmp/threadback-bench-hooks"))
    ap.add_argument("--keep", action="store_true", help="reuse the generated tree and index")
    args = ap.parse_args()

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
                "THREADBACK_CONFIG": str(config)})
    argv = hook_command()

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other work on the machine shows here)")
    for label, code in (("python -c pass (start-up floor)", "pass"),
                        ("import the hook flow", "import indexer.agents.hooks")):
        base = [run_once([sys.executable, "-c", code], {}, env)[0] for _ in range(args.runs)]
        p50, p95 = percentiles(base)
        print(f"{label:<32} p50 {p50:6.0f} ms   p95 {p95:6.0f} ms")

    (home / REFRESH_STAMP).touch()
    for label, name, payload in CASES:
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
        flag = "" if p95 < 300 else "   OVER 300 ms"
        print(f"hook {label:<27} p50 {p50:6.0f} ms   p95 {p95:6.0f} ms   ({size:,} bytes out){flag}")

    spawn = []
    for _ in range(5):
        (home / REFRESH_STAMP).unlink(missing_ok=True)
        spawn.append(run_once([*argv, "hook", "refresh"], CASES[-1][2], env)[0])
        time.sleep(1.0)  # let the background index run finish before the next
    p50, p95 = percentiles(spawn)
    print(f"hook {'stop, starts an index run':<27} p50 {p50:6.0f} ms   p95 {p95:6.0f} ms   (5 runs)")

    # The same work in this process: what the hook does once Python and its modules are loaded.
    os.environ.update(env)
    from indexer.agents import hooks

    for label, name, payload in CASES:
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


if __name__ == "__main__":
    main()

"""How long ``threadback hook session-start`` takes, and how much memory it uses, on the inputs
issue 12 named: an empty memory, the 8-line YAML alias bomb, and a fact.yml that takes ruamel
many seconds (left out at the 1 s budget). Each run is a fresh process, as Claude Code runs it.

    .venv/bin/python bench/bench_hooks.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_trust_attacks import ALIAS_BOMB, THREADBACK, clean_env, run_measured  # noqa: E402

CASES = {
    "empty memory": {},
    "alias bomb in fact.yml": {"fact.yml": ALIAS_BOMB},
    "30,000-line fact.yml": {"fact.yml": "".join(f"key{i}: [alpha, beta, {{gamma: {i}}}]\n" for i in range(30000))},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    for name, files in CASES.items():
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
            print(f"{name:<26} wall median {statistics.median(times) * 1000:5.0f} ms, "
                  f"max {max(times) * 1000:5.0f} ms; peak RSS {max(peaks)} MB")


if __name__ == "__main__":
    main()

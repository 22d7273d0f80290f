"""Running ``threadback`` as a real subprocess, the way a shell or an agent runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def cli_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), **extra}
    env.pop("THREADBACK_DEBUG", None)
    return env


def threadback(*argv: str | bytes, timeout: float = 60, **extra_env: str) -> subprocess.CompletedProcess:
    """``threadback ARGV...`` (bytes arguments go in as they are); stdout and stderr as text."""
    return subprocess.run([sys.executable, "-m", "tui.cli", *argv], capture_output=True, env=cli_env(**extra_env),
                          timeout=timeout, cwd=REPO, text=True, errors="backslashreplace")


def start(*argv: str, **extra_env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tui.cli", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=cli_env(**extra_env), cwd=REPO, text=True)


def assert_one_line_no_traceback(proc: subprocess.CompletedProcess) -> str:
    """The error as the user sees it: one ``threadback: ...`` line and no Python traceback."""
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("threadback: ") and "warning" not in line]
    assert len(lines) == 1, proc.stderr
    return lines[0]


DRIVER = """
import json, sys
from tui.cli.main import main
for argv in json.loads(sys.argv[1]):
    print("\\x00start", flush=True)
    print("\\x00start", file=sys.stderr, flush=True)
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    sys.stdout.flush()
    print(f"\\x00end {code}", flush=True)
    print("\\x00end", file=sys.stderr, flush=True)
"""


def threadback_many(commands: list[list[str]], **extra_env: str) -> list[tuple[int, str, str]]:
    """Several commands in one real process (one interpreter start): (exit code, stdout, stderr)
    each, printed through the process's real stdout and stderr."""
    import json

    proc = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(commands)], capture_output=True,
                          env=cli_env(**extra_env), cwd=REPO, timeout=120)
    outs = proc.stdout.decode("utf-8", "backslashreplace").split("\x00start\n")[1:]
    errs = proc.stderr.decode("utf-8", "backslashreplace").split("\x00start\n")[1:]
    assert len(outs) == len(commands), proc.stderr
    results = []
    for out, err in zip(outs, errs):
        body, _, tail = out.rpartition("\x00end ")
        results.append((int(tail.strip() or 0), body, err.rpartition("\x00end")[0]))
    return results

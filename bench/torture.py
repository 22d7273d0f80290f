"""Index runs killed at random moments over a tree of every bad input, compared with a clean run.
Prints figures; asserts nothing (it exits 1 when something was lost or doubled).

    python bench/torture.py --size-mb 300 --files 3000 --kills 12 --out /tmp/threadback-torture

The tree: every bad class of tests/bad_logs.py (lone surrogates in every field, a file name
that is not UTF-8, non-UTF-8 bytes, a line nested thousands deep, truncated and doubled lines,
pretty-printed records, an empty file, a 1 MB line) beside a generated tree of ``--size-mb``
(bench/bench_index.py's generator: big enough that runs use the helper process).

Then: a reference index built by one uninterrupted run; a second index built by
``threadback index`` processes killed (SIGKILL) at random moments, ``--kills`` times, then one
run left to finish. Printed: messages found / expected, rows lost and doubled (by session and
content), the bad logs' markers found, tracebacks seen in any run's output or saved trace
files, and SQLite's own checks of the killed-and-resumed index.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

from bad_logs import build  # noqa: E402
from bench_index import generate  # noqa: E402

from indexer import Index  # noqa: E402


def roots_args(logs: Path) -> list[str]:
    return ["--claude-dir", str(logs / "bad" / "claude"), "--claude-dir", str(logs / "gen" / "claude"),
            "--codex-dir", str(logs / "bad" / "codex"), "--pi-dir", str(logs / "bad" / "pi")]


def run_index(db: Path, logs: Path, env: dict[str, str], kill_after: float | None) -> tuple[int | None, str]:
    """One ``threadback index`` process; killed with SIGKILL after ``kill_after`` seconds."""
    proc = subprocess.Popen([sys.executable, "-m", "tui.cli", "index", "-q", "--db", str(db), *roots_args(logs)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO)
    if kill_after is None:
        out, err = proc.communicate()
        return proc.returncode, (out + err).decode("utf-8", "backslashreplace")
    try:
        out, err = proc.communicate(timeout=kill_after)
        return proc.returncode, (out + err).decode("utf-8", "backslashreplace")  # finished first
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate()
        return None, (out + err).decode("utf-8", "backslashreplace")


def rows(db: Path) -> Counter:
    """Every message as (agent, session, role, kind, text): what must be there once each."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    found = Counter(
        (agent, session, role, kind, text if isinstance(text, str) else bytes(text))
        for agent, session, role, kind, text in conn.execute(
            "SELECT s.agent, s.session_id, m.role, m.kind, m.text FROM messages m JOIN sessions s ON s.id = m.session_rowid")
    )
    conn.close()
    return found


def stored(db: Path) -> int:
    """Messages committed so far (the count each run keeps in meta)."""
    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'message_count'").fetchone()
        return int(row[0]) if row else 0
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def checks(db: Path) -> list[str]:
    """SQLite's checks of both files and of the main trigram table against its content."""
    conn = sqlite3.connect(db)
    conn.execute(f"ATTACH DATABASE '{db}.side' AS side")
    out = [f"quick_check main: {conn.execute('PRAGMA main.quick_check').fetchone()[0]}",
           f"quick_check side: {conn.execute('PRAGMA side.quick_check').fetchone()[0]}"]
    try:
        conn.execute("INSERT INTO fts(fts) VALUES ('integrity-check')")
        out.append("fts integrity-check: ok")
    except sqlite3.DatabaseError as exc:
        out.append(f"fts integrity-check: FAILED ({exc})")
    conn.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=int, default=300)
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--kills", type=int, default=12)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", type=Path, default=Path("/tmp/threadback-torture"))
    ap.add_argument("--keep", action="store_true", help="reuse the generated tree and the reference index")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    logs, reference, tortured = args.out / "logs", args.out / "reference.sqlite3", args.out / "tortured.sqlite3"
    home = args.out / "home"
    if not (args.keep and logs.exists() and reference.exists()):
        shutil.rmtree(args.out, ignore_errors=True)
        started = time.perf_counter()
        bad = build(logs / "bad")
        raw = generate(logs / "gen", args.size_mb, args.files)
        print(f"tree: {len(bad.files)} bad-class files + {raw / 1e6:,.0f} MB generated in {args.files:,} files "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    bad = build(args.out / "bad-markers")  # the same markers, written aside to list them
    env = {**os.environ, "PYTHONPATH": str(REPO), "THREADBACK_HOME": str(home), "THREADBACK_CONFIG": str(home / "none.toml")}
    env.pop("THREADBACK_DEBUG", None)
    if not (args.keep and reference.exists()):
        started = time.perf_counter()
        code, output = run_index(reference, logs, env, None)
        print(f"reference: one uninterrupted run, exit {code}, {time.perf_counter() - started:.1f} s", flush=True)
    ref_seconds = max(5.0, (time.perf_counter() - started) if not args.keep else 60.0)

    for suffix in ("", "-wal", "-shm", ".side", ".side-wal", ".side-shm", ".lock", ".last-run.json"):
        Path(str(tortured) + suffix).unlink(missing_ok=True)
    shutil.rmtree(home / "errors", ignore_errors=True)
    tracebacks, outputs = 0, []
    started = time.perf_counter()
    for n in range(args.kills):
        moment = rng.uniform(0.05, 0.6) * ref_seconds
        code, output = run_index(tortured, logs, env, moment)
        outputs.append(output)
        tracebacks += output.count("Traceback")
        state = "killed" if code is None else f"finished first (exit {code})"
        print(f"run {n + 1:>2}: SIGKILL after {moment:5.1f} s: {state}; {stored(tortured):,} messages stored", flush=True)
    code, output = run_index(tortured, logs, env, None)
    tracebacks += output.count("Traceback")
    print(f"last run, left to finish: exit {code} ({time.perf_counter() - started:.0f} s of torture in all)")
    saved = list((home / "errors").glob("*.txt")) if (home / "errors").exists() else []

    expected, found = rows(reference), rows(tortured)
    lost = sum((expected - found).values())
    doubled = sum((found - expected).values())
    with Index(tortured, readonly=True) as index:
        markers = sum(1 for m in bad.markers if index.search(m).hits)
        failing = index.failing_files()
    print(f"messages found / expected: {sum(found.values()):,} / {sum(expected.values()):,}")
    print(f"lost rows: {lost:,}    doubled rows: {doubled:,}")
    print(f"bad-log markers found: {markers} / {len(bad.markers)}; files still failing: {len(failing)}")
    print(f"tracebacks seen: {tracebacks} in run output, {len(saved)} saved trace files")
    for line in checks(tortured):
        print(line)
    shutil.rmtree(args.out / "bad-markers", ignore_errors=True)
    return 0 if not (lost or doubled or tracebacks or saved or code) and markers == len(bad.markers) else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Index runs killed at random moments over a tree of every bad input, compared with a clean run.
Prints figures; asserts nothing (it exits 1 when something was lost or doubled).

    python bench/quality/torture.py --size-mb 300 --files 3000 --kills 12 --out /tmp/threadback-torture

The tree: every bad class of tests/support/bad_logs.py (lone surrogates in every field, a file name
that is not UTF-8, non-UTF-8 bytes, a line nested thousands deep, truncated and doubled lines,
pretty-printed records, an empty file, a 1 MB line) beside a generated tree of ``--size-mb``
(bench/speed/bench_index.py's generator: big enough that runs use the helper process).

Then ``threadback index`` processes are killed (SIGKILL) at random moments, ``--kills`` times;
before each run the tree changes (``--grow`` logs appended to, a new log, a log rewritten in
place with its size and mtime put back), so every run has work to be killed in. One last run
is left to finish, and a reference index is built from the final tree by one uninterrupted
run. Printed: messages found / expected, rows lost and doubled (by session and content), the
bad logs' markers found, tracebacks seen in any run's output or saved trace files, and
SQLite's own checks of the killed-and-resumed index.
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

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "support")]
sys.path.insert(0, str(REPO / "bench" / "speed"))

from bad_logs import build  # noqa: E402
from bench_index import claude_session, generate  # noqa: E402

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


def mutate(logs: Path, rng: random.Random, round_no: int, grow: int, grow_kb: int) -> str:
    """Give the next run work: append to ``grow`` logs, add one, rewrite one in place (same
    size, mtime put back). What changed, in a few words."""
    files = sorted((logs / "gen" / "claude").rglob("*.jsonl"))
    for path in rng.sample(files, grow):
        sid = path.stem
        data = claude_session(rng, sid, "/home/dev/torture", grow_kb * 1000, 1767225600.0 + round_no * 3600)
        data = data.replace(f'"{sid}-'.encode(), f'"{sid}-r{round_no}-'.encode())
        data = data.replace(f"msg_{sid}_".encode(), f"msg_{sid}_r{round_no}_".encode())
        data = data.replace(f"toolu_{sid}_".encode(), f"toolu_{sid}_r{round_no}_".encode())
        with path.open("ab") as fh:
            fh.write(data)
    sid = f"{round_no:08x}-1111-4000-8000-{round_no:012x}"
    new = logs / "gen" / "claude" / "-home-dev-torture" / f"{sid}.jsonl"
    new.parent.mkdir(parents=True, exist_ok=True)
    new.write_bytes(claude_session(rng, sid, "/home/dev/torture", 50_000, 1767225600.0 + round_no * 3600))
    victim = rng.choice(files)
    st = victim.stat()
    data = victim.read_bytes()
    swapped = data.replace(b"websocket", b"WEBSOCKET") if b"websocket" in data else data.replace(b"WEBSOCKET", b"websocket")
    victim.write_bytes(swapped)
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns))
    return f"{grow} grown, 1 new, 1 rewritten in place"


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
    ap.add_argument("--max-kill-seconds", type=float, default=15.0, help="kill moments are drawn up to this")
    ap.add_argument("--grow", type=int, default=40, help="logs appended to before each run")
    ap.add_argument("--grow-kb", type=int, default=200, help="how much is appended to each")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", type=Path, default=Path("/tmp/threadback-torture"))
    ap.add_argument("--keep", action="store_true", help="reuse the generated tree")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    logs, reference, tortured = args.out / "logs", args.out / "reference.sqlite3", args.out / "tortured.sqlite3"
    home = args.out / "home"
    if not (args.keep and logs.exists()):
        shutil.rmtree(args.out, ignore_errors=True)
        started = time.perf_counter()
        bad = build(logs / "bad")
        raw = generate(logs / "gen", args.size_mb, args.files)
        print(f"tree: {len(bad.files)} bad-class files + {raw / 1e6:,.0f} MB generated in {args.files:,} files "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    bad = build(args.out / "bad-markers")  # the same markers, written aside to list them
    env = {**os.environ, "PYTHONPATH": str(REPO), "THREADBACK_HOME": str(home), "THREADBACK_CONFIG": str(home / "none.toml")}
    env.pop("THREADBACK_DEBUG", None)
    for db in (reference, tortured):
        for suffix in ("", "-wal", "-shm", ".side", ".side-wal", ".side-shm", ".lock", ".last-run.json"):
            Path(str(db) + suffix).unlink(missing_ok=True)
    shutil.rmtree(home / "errors", ignore_errors=True)
    tracebacks, killed, code = 0, 0, None
    started = time.perf_counter()
    for n in range(args.kills):
        note = mutate(logs, rng, n, args.grow, args.grow_kb) if n else "the whole tree"
        # While the big tree is still being built, kills land anywhere in a long run; after,
        # the runs are short (a few changed logs) and so are the moments drawn.
        moment = rng.uniform(0.3, args.max_kill_seconds) if code is None else rng.uniform(0.1, 2.5)
        code, output = run_index(tortured, logs, env, moment)
        tracebacks += output.count("Traceback")
        killed += code is None
        state = "killed" if code is None else f"finished first (exit {code})"
        print(f"run {n + 1:>2} ({note}): SIGKILL after {moment:5.1f} s: {state}; {stored(tortured):,} messages stored",
              flush=True)
    code, output = run_index(tortured, logs, env, None)
    tracebacks += output.count("Traceback")
    print(f"last run, left to finish: exit {code}; {killed} of {args.kills} runs killed mid-run "
          f"({time.perf_counter() - started:.0f} s in all)", flush=True)
    saved = list((home / "errors").glob("*.txt")) if (home / "errors").exists() else []
    started = time.perf_counter()
    ref_code, _ = run_index(reference, logs, env, None)
    print(f"reference: one uninterrupted run over the final tree, exit {ref_code}, {time.perf_counter() - started:.1f} s")

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

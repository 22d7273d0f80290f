"""What the runs after a build cost, for several checkouts side by side on one tree. Prints
figures; asserts nothing.

    python bench/speed/bench_build_cost.py --logs TREE/logs --scratch DIR [--rounds 3] NAME=CHECKOUT ...

A tree comes from ``bench_index.py`` (its ``logs``: ``claude/``) or is a real-format one
(``claude-code/``, ``codex/``, ``pi/``; the appends go to Claude Code logs); a checkout is a directory holding
``indexer/`` (``git archive REV | tar -x -C DIR``). Each checkout builds its own index of the
tree cold (the archive on, as a person's config has it), then every round runs, for each
checkout in turn (the order flips every round, so the machine's drift falls on both):
  - a no-change run;
  - 10 lines appended to 5 logs, then a run;
  - ``chmod`` of every log to the mode it has (its inode change time moves, its bytes do not),
    then a run: it must re-add no message;
  - with ``--steps ...,back``: ``--back`` logs moved away, a run of each index (they are gone),
    the logs moved back, then the timed run: nothing to read again.
Every index's archive links the same logs: building one moves the change time of every log
for the others (the hard-link case above). Each run is a fresh process (as a hook's or the
CLI's), timed inside it around ``update`` alone, around import, ``Index`` open, ``update`` and
close, and from outside for the whole process. ``--shared-db``: every checkout runs on one
index in turn (a no-change run compared on the same segments; an append made for each run). Targets (issue 38): no-change
< 150 ms on a freshly built 1 GB index, the append < 200 ms, after chmod < 3 s at 1 GB with 0
messages re-added.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.speed.bench_index import claude_session  # noqa: E402
from bench.speed.checkouts import compiled_checkouts  # noqa: E402

ONE = r'''
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
t0 = time.perf_counter()
from indexer import Index, only_roots
logs = Path(sys.argv[3])
folders = {"claude-code": ["claude", "claude-code"], "codex": ["codex"], "pi": ["pi"]}  # bench_index / real_tree
roots = {agent: [logs / n for n in names if (logs / n).is_dir()] for agent, names in folders.items()}
index = Index(Path(sys.argv[2]))
t1 = time.perf_counter()
summary = index.update(only_roots({agent: paths for agent, paths in roots.items() if paths}))
update = time.perf_counter() - t1
index.close()
seconds = time.perf_counter() - t0
peak = [resource.getrusage(w).ru_maxrss / 1024 for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
print(json.dumps({"seconds": seconds, "update": update, "added": summary.messages_added, "changed": summary.files_changed,
                  "read": summary.bytes_read, "main_mb": peak[0], "helper_mb": peak[1],
                  "problems": summary.problems[:3]}))
'''


def run_once(tree: str, db: Path, logs: Path, scratch: Path) -> dict:
    env = {**os.environ, "HOME": str(scratch), "XDG_CONFIG_HOME": str(scratch / "config")}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", ONE, tree, str(db), str(logs)], capture_output=True, text=True,
                          env=env)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: the run failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process"] = time.perf_counter() - started
    return result


def append_lines(logs: Path, files: int, lines: int, seed: int) -> None:
    """``lines`` new lines at the end of each of ``files`` logs (a fresh session's records,
    as an agent writes them; taken whole from a generated session)."""
    rng = random.Random(seed)
    claude = logs / "claude" if (logs / "claude").is_dir() else logs / "claude-code"  # generated / real format
    victims = sorted(claude.rglob("*.jsonl"))
    for path in rng.sample(victims, files):
        records = claude_session(rng, f"append-{time.time_ns()}", "/home/dev/proj0", 20000, time.time())
        with path.open("ab") as fh:
            fh.write(b"".join(line + b"\n" for line in records.split(b"\n")[:lines]))


def chmod_all(logs: Path) -> int:
    count = 0
    for path in (p for p in logs.rglob("*") if p.is_file()):
        os.chmod(path, path.stat().st_mode & 0o7777)
        count += 1
    return count


def move_away(logs: Path, away: Path, count: int) -> list[Path]:
    """The first ``count`` logs (by path) moved to ``away``, their folders kept: a rename keeps
    each one's inode, as a folder renamed for a while or unmounted does."""
    moved = []
    for path in sorted(p for p in logs.rglob("*") if p.is_file())[:count]:
        target = away / path.relative_to(logs)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(path, target)
        moved.append(path)
    return moved


def move_back(logs: Path, away: Path, moved: list[Path]) -> None:
    for path in moved:
        os.rename(away / path.relative_to(logs), path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", type=Path, required=True)
    ap.add_argument("--scratch", type=Path, required=True, help="a folder for the indexes")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="use the indexes already in --scratch")
    ap.add_argument("--shared-db", type=Path,
                    help="one index every checkout runs on in turn (no builds): a no-change run compared on the "
                         "same segments; the last checkout runs once first, not counted")
    ap.add_argument("--steps", default="no-change,append,chmod",
                    help="which steps each round runs (a checkout that re-reads every log after chmod takes long); "
                         "also: back (--back logs moved away, a run of each index finds them gone, then back)")
    ap.add_argument("--back", type=int, default=1000, help="logs the back step moves away and back")
    ap.add_argument("checkouts", nargs="+", help="NAME=DIR")
    args = ap.parse_args()
    checkouts = compiled_checkouts(args.checkouts)
    dbs = {name: args.shared_db or args.scratch / name / "index.sqlite3" for name, _ in checkouts}
    if args.shared_db:  # the checkout that confirms moved change times by hashes goes first
        name, tree = checkouts[-1]
        r = run_once(tree, args.shared_db, args.logs, args.scratch / name)
        print(f"{name:8} first run on the shared index: {r['seconds'] * 1000:.0f} ms, {r['added']:,} added", flush=True)
    for name, tree in checkouts:
        if args.shared_db or (args.keep and dbs[name].exists()):
            continue
        subprocess.run(["rm", "-rf", str(args.scratch / name)], check=True)
        dbs[name].parent.mkdir(parents=True)
        r = run_once(tree, dbs[name], args.logs, args.scratch / name)
        print(f"{name:8} cold build {r['seconds']:6.1f} s, {r['added']:,} messages, peak RSS main {r['main_mb']:.0f} MB, "
              f"helper {r['helper_mb']:.0f} MB", flush=True)
    def away_and_back(n: int) -> None:
        away = args.scratch / "away"
        moved = move_away(args.logs, away, args.back)
        for name, tree in checkouts:  # each index finds them gone (not timed)
            run_once(tree, dbs[name], args.logs, args.scratch / name)
        move_back(args.logs, away, moved)

    every = {"no-change": ("no-change", None),
             "append": ("append 10 lines x 5 logs", lambda n: append_lines(args.logs, 5, 10, n)),
             "chmod": ("after chmod of every log", lambda n: chmod_all(args.logs)),
             "back": (f"{args.back:,} logs back after gone", away_and_back)}
    steps = dict(every[name] for name in args.steps.split(","))
    figures: dict[tuple[str, str], list[dict]] = {}
    for n in range(1, args.rounds + 1):
        order = checkouts if n % 2 else checkouts[::-1]
        for step, change in steps.items():
            if change is not None and not args.shared_db:
                change(n)
            for name, tree in order:
                if change is not None and args.shared_db:
                    change(n)  # each checkout's run finds its own change
                r = run_once(tree, dbs[name], args.logs, args.scratch / name)
                figures.setdefault((step, name), []).append(r)
                print(f"[{n}] {step:26} {name:8} {r['update'] * 1000:7.0f} ms update(), "
                      f"{r['seconds'] * 1000:7.0f} ms with import and open, "
                      f"{r['process'] * 1000:7.0f} ms the process; {r['changed']:,} files changed, "
                      f"{r['added']:,} messages added, {r['read'] / 1e6:,.1f} MB read"
                      + (f"; {'; '.join(r['problems'])}" if r["problems"] else ""), flush=True)
    print("median over the rounds (update() / with import and open / the whole process):")
    for (step, name), runs in figures.items():
        print(f"  {step:26} {name:8} {statistics.median(r['update'] for r in runs) * 1000:7.0f} ms / "
              f"{statistics.median(r['seconds'] for r in runs) * 1000:7.0f} ms / "
              f"{statistics.median(r['process'] for r in runs) * 1000:7.0f} ms, "
              f"messages added {', '.join(str(r['added']) for r in runs)}")


if __name__ == "__main__":
    main()

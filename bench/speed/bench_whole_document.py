"""A log written as one JSON document, rewritten whole at every turn (Gemini's chat files): what a
run costs after each rewrite, for several checkouts side by side. Prints figures; asserts nothing.

    python bench/speed/bench_whole_document.py --scratch DIR [--messages 2000] [--turns 3] [--rounds 2] NAME=CHECKOUT ...

Each round, for each checkout in turn (the order flips every round): a Gemini session of
``--messages`` messages of ~500 characters is written and indexed into a fresh index, then
``--turns`` times one message is added, the document written again whole and a run timed
(around ``update`` in a fresh process, as a hook's). Also printed: the messages each run added
and the largest message id (what a run that stores every message again uses up).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.speed.checkouts import compiled_checkouts  # noqa: E402

ONE = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from indexer import Index, only_roots
index = Index(Path(sys.argv[2]))
t = time.perf_counter()
s = index.update(only_roots({"gemini": [Path(sys.argv[3])]}))
print(json.dumps({"seconds": time.perf_counter() - t, "added": s.messages_added,
                  "top": index.conn.execute("SELECT max(id) FROM messages").fetchone()[0]}))
'''
WORDS = ("the build failed because the cache key changed after the migration so we retried with a clean "
         "checkout and pinned the versions of every tool the release uses").split()


def message(rng: random.Random, i: int) -> dict:
    text = " ".join(rng.choice(WORDS) for _ in range(80)) + f" step {i}"
    return {"id": f"m{i}", "timestamp": f"2024-01-01T{10 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
            "type": "user" if i % 2 == 0 else "gemini", "content": text}


def write(home: Path, messages: list[dict]) -> None:
    chats = home / "abc123def456" / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    (chats.parent / ".project_root").write_text("/w/proj")
    doc = {"sessionId": "sess-big", "projectHash": "abc123def456", "startTime": "2024-01-01T10:00:00Z",
           "lastUpdated": "2024-01-01T12:00:00Z", "messages": messages}
    (chats / "session-2024-01-01T10-00-big.json").write_text(json.dumps(doc, indent=2))


def run(tree: str, db: Path, home: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", ONE, tree, str(db), str(home)], capture_output=True, text=True,
                          cwd=tree)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: the run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scratch", type=Path, required=True)
    ap.add_argument("--messages", type=int, default=2000)
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("checkouts", nargs="+", help="NAME=DIR")
    args = ap.parse_args()
    checkouts = compiled_checkouts(args.checkouts)
    times: dict[str, list[float]] = {name: [] for name, _ in checkouts}
    for n in range(1, args.rounds + 1):
        for name, tree in checkouts if n % 2 else checkouts[::-1]:
            folder = args.scratch / name
            subprocess.run(["rm", "-rf", str(folder)], check=True)
            home, db = folder / "gemini" / "tmp", folder / "index.sqlite3"
            rng = random.Random(n)
            messages = [message(rng, i) for i in range(args.messages)]
            write(home, messages)
            first = run(tree, db, home)
            print(f"[{n}] {name:8} first run {first['seconds'] * 1000:7.0f} ms, {first['added']:,} added", flush=True)
            for turn in range(args.turns):
                messages.append(message(rng, len(messages)))
                write(home, messages)
                r = run(tree, db, home)
                times[name].append(r["seconds"])
                print(f"[{n}] {name:8} rewrite {turn + 1}: {r['seconds'] * 1000:7.0f} ms, {r['added']:,} added, "
                      f"largest id {r['top']:,}", flush=True)
    for name, runs in times.items():
        print(f"{name:8} median run after a rewrite: {statistics.median(runs) * 1000:.0f} ms "
              f"({min(runs) * 1000:.0f}-{max(runs) * 1000:.0f})")


if __name__ == "__main__":
    main()

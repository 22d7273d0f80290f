"""Line attribution (``threadback blame``) on files with known histories. Prints figures.

    python bench/quality/attribution_eval.py              # train (seeds 100-139) and held-out (500-539), git and not
    python bench/quality/attribution_eval.py --set train  # only the seeds tuned on
    python bench/quality/attribution_eval.py --set fresh  # 100 more seeds (200-299), a wider look
    python bench/quality/attribution_eval.py --simple     # the first, simpler generator (every call succeeds, no sed, no rebase)

Tune only on the train seeds; the held-out seeds are reported, never tuned on.

Each history (``tests/support/attribution_histories.py``) is a real file in a real git repository (or a
plain folder), changed by Claude and Codex sessions (create, edit, re-edit, insert, delete,
move, rewrite; Edit/MultiEdit/Write, apply_patch, here-documents) and by a person in between,
with commits along the way; the logs are indexed and every line of the final file blamed.
Targets: at least 95% of session-written lines right, under 1% of all lines wrongly attributed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support")]

from attribution_histories import Score, attributed_lines, play, score  # noqa: E402
from indexer import Index, only_roots  # noqa: E402
from indexer.provenance.blame import blame_file  # noqa: E402


SETS = {"train": range(100, 140), "held-out": range(500, 540), "fresh": range(200, 300), "tests": range(0, 8)}


def run(seeds: range, git: bool, base: Path, realistic: bool = True) -> tuple[Score, float]:
    total, seconds = Score(), 0.0
    for seed in seeds:
        history = play(base / f"{seed}-{git}", seed, git=git, realistic=realistic)
        with Index(base / f"{seed}-{git}.sqlite3") as index:
            index.update(only_roots({a: [p] for a, p in history.logs.items() if p.exists()}), now=time.time())
            start = time.perf_counter()
            blame = blame_file(index, str(history.file))
            seconds += time.perf_counter() - start
        total.add(score(history, attributed_lines(blame)))
    return total, seconds / max(1, len(seeds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=[*SETS, "both"], default="both")
    parser.add_argument("--simple", action="store_true", help="the simpler generator")
    args = parser.parse_args()
    names = ["train", "held-out"] if args.set == "both" else [args.set]
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            seeds = SETS[name]
            for git in (True, False):
                s, per_file = run(seeds, git, Path(tmp) / name, realistic=not args.simple)
                print(f"{name:8}  {'git   ' if git else 'no git'}  histories {len(seeds)}  lines {s.lines}"
                      f"  session-written {s.session_lines}  right {s.right_share:.1%} (target >= 95%)"
                      f"  missed {s.missed / max(1, s.session_lines):.1%}  wrong {s.wrong_share:.2%} (target < 1%)"
                      f"  unsure-and-wrong {s.unsure_wrong / max(1, s.lines):.2%}  blame {per_file * 1000:.0f} ms/file",
                      flush=True)


if __name__ == "__main__":
    main()

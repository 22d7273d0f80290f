"""How much of each tool output to index: recall on the labelled set against index size on a
real-format tree, one strategy after another. Prints figures; asserts nothing.

    python bench/quality/output_strategies.py --tree /tmp/tb-r10/logs   # a tree from scripts/real_tree.py

Strategies: ``none`` (outputs not indexed, as before issue 32), ``errors`` (the lines that say
what went wrong, ``indexer.text.output_excerpt``, the shipped one), ``head-tail`` (the first and
last 10 lines, with the error lines), ``whole`` (the whole output up to 8,000 characters). Each
builds the labelled sessions' index and the tree's index in this process (no helper process, so
the strategy applies to every file), then asks every labelled query as ``search --sessions`` does.
The budget (issue 32): the index may grow by at most 0.15x the raw logs for tool output.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support")]

import indexer.ingest.prepare as prepare  # noqa: E402
import indexer.ingest.stream as stream  # noqa: E402
from indexer import Index, only_roots  # noqa: E402
from indexer.text.output_excerpt import output_excerpt, shows_files  # noqa: E402
from search_quality import figures, load, roots, score  # noqa: E402


def _head_tail(text: str, tool_name: str | None = None, call_line: str | None = None) -> str:
    if shows_files(call_line) or (tool_name or "").lower() in ("read", "read_file", "view"):
        return ""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    kept = lines[:10] + lines[-10:] if len(lines) > 20 else lines
    errors = output_excerpt(text, tool_name, call_line)
    return "\n".join(dict.fromkeys([*kept, *errors.split("\n")]))[:4000] if kept else ""


def _whole(text: str, tool_name: str | None = None, call_line: str | None = None) -> str:
    return text[:8000] if text.strip() else ""


STRATEGIES = {"none": lambda *_: "", "errors": output_excerpt, "head-tail": _head_tail, "whole": _whole}


def _size(folder: Path) -> int:
    for name in ("index.sqlite3", "index.sqlite3.side"):
        with sqlite3.connect(folder / name) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in folder.glob("index.sqlite3*"))


def run(strategy: str, tree: Path, base: Path) -> str:
    prepare.output_excerpt = STRATEGIES[strategy]
    labelled = base / strategy / "labelled"
    labelled.mkdir(parents=True)
    with Index(labelled / "index.sqlite3") as index:
        index.update(only_roots(roots()), now=time.time(), archive=False)
    with Index(labelled / "index.sqlite3", readonly=True) as index:
        def answer(query: str) -> list[str]:
            return [s.session.session_id for s in index.search(query, limit=20, by_session=True, evidence=1).sessions]
        outcomes = score(load("all"), answer)
    output = figures([o for o in outcomes if o.item.group == "output"])
    others = figures([o for o in outcomes if o.item.group != "output"])
    folder = base / strategy / "tree"
    folder.mkdir()
    started = time.process_time()
    with Index(folder / "index.sqlite3") as index:
        index.update(only_roots({a: [tree / a] for a in ("claude-code", "codex", "pi") if (tree / a).exists()}),
                     now=time.time(), archive=False)
    cpu = time.process_time() - started
    return (f"{strategy:<10} output queries hit@1 {output.hit1}/{output.n}  hit@3 {output.hit3}/{output.n}  "
            f"other queries hit@1 {others.hit1}/{others.n}  |  tree index {_size(folder) / 1e6:.1f} MB  build CPU {cpu:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, required=True, help="a real-format log tree (its logs folder)")
    parser.add_argument("--strategies", nargs="*", default=list(STRATEGIES))
    args = parser.parse_args()
    stream.PARALLEL_MIN_BYTES = 1 << 62  # in this process: the strategy is patched here only
    raw = sum(p.stat().st_size for p in args.tree.rglob("*") if p.is_file())
    print(f"tree {args.tree}: {raw / 1e6:.1f} MB of logs; budget for tool output +{0.15 * raw / 1e6:.1f} MB")
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        for strategy in args.strategies:
            print(run(strategy, args.tree, Path(tmp)), flush=True)


if __name__ == "__main__":
    main()

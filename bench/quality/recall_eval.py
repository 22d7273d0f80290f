"""Past-work detector quality and speed on the labelled prompts. Prints figures; asserts nothing.

    python bench/quality/recall_eval.py                 # held-out split (the one not tuned on)
    python bench/quality/recall_eval.py --split train   # or: all
    python bench/quality/recall_eval.py --errors        # also list the prompts it gets wrong

Quality: precision, recall, F1 and accuracy per language (en, zh-Hant, zh-Hans, ja) and overall,
from ``tests/data/recall/prompts.jsonl``. Speed: time per ``detect_recall`` call over the set and
on long prompts (pasted logs before or after the question, and the worst case: many kB of dense
prose full of cues), since the prompt hook's whole budget is tens of milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "support")]

from indexer.agents.recall import detect_recall  # noqa: E402
from recall_scoring import PromptFileError, format_table, load_prompts, score  # noqa: E402

LONG_PASTE = (
    "Traceback (most recent call last):\n  File \"indexer/ingest/writer.py\", line 211, in flush\n"
    "    conn.executemany(INSERT_MESSAGE, batch)\nsqlite3.IntegrityError: UNIQUE constraint failed\n"
)


def timings_us(prompts: list[str], rounds: int) -> list[float]:
    """Microseconds per call, one figure per prompt (the best of ``rounds`` runs)."""
    figures = []
    for text in prompts:
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            detect_recall(text)
            best = min(best, time.perf_counter() - start)
        figures.append(best * 1e6)
    return figures


def describe(figures: list[float]) -> str:
    figures = sorted(figures)
    p99 = figures[min(len(figures) - 1, int(len(figures) * 0.99))]
    return f"median {statistics.median(figures):.0f} µs, p99 {p99:.0f} µs, max {figures[-1]:.0f} µs"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("heldout", "train", "all"), default="heldout")
    parser.add_argument("--errors", action="store_true", help="list the prompts the detector gets wrong")
    parser.add_argument("--rounds", type=int, default=5, help="timing runs per prompt (best is kept)")
    args = parser.parse_args(argv)
    try:
        prompts = load_prompts(split=args.split)
    except (OSError, PromptFileError) as exc:
        print(f"recall_eval: {exc}", file=sys.stderr)
        return 2

    table = score(prompts, lambda text: detect_recall(text) is not None)
    print(f"Past-work detector on the {args.split} split ({len(prompts)} prompts)\n")
    print(format_table(table))
    if args.errors:
        print("\nErrors (FP = fired on a negative, FN = missed a positive):")
        for prompt, predicted in table["all"].errors:
            tag = "FP" if predicted else "FN"
            print(f"  {tag} {prompt.lang:7} {prompt.kind:7} {prompt.text[:110]!r}")

    texts = [p.text for p in prompts]
    print(f"\nTime per detect_recall call (best of {args.rounds} runs per prompt):")
    print(f"  the {len(texts)} prompts of the split: {describe(timings_us(texts, args.rounds))}")
    for label, long_texts in long_prompts(texts, load_prompts()).items():
        print(f"  {label}: {describe(timings_us(long_texts, args.rounds))}")
    print("\nA hook is a fresh process: importing the detector, then its first call, per language:")
    for lang in ("en", "zh-Hans", "zh-Hant", "ja"):
        sample = next(p.text for p in prompts if p.lang == lang and p.label)
        print(f"  {lang:8} {fresh_process_ms(sample)}")
    return 0


FRESH = """
import sys, time
import indexer, indexer.search.query  # the hook has these already
t0 = time.perf_counter()
import indexer.agents.recall as recall
t1 = time.perf_counter()
recall.detect_recall(sys.argv[1])
t2 = time.perf_counter()
print(f"import {1000 * (t1 - t0):.1f} ms, first call {1000 * (t2 - t1):.1f} ms")
"""


def fresh_process_ms(prompt: str) -> str:
    """Import and first-call time in a new interpreter (best of three runs)."""
    runs = [subprocess.run([sys.executable, "-c", FRESH, prompt], capture_output=True, text=True, cwd=ROOT)
            for _ in range(3)]
    outputs = sorted((r.stdout.strip() for r in runs if r.returncode == 0), key=lambda out: float(out.split()[1]))
    return outputs[0] if outputs else "failed: " + runs[0].stderr.strip().splitlines()[-1]


def long_prompts(texts: list[str], every: list) -> dict[str, list[str]]:
    """Long prompts built from the set: each a question with a paste, and dense prose."""
    paste = LONG_PASTE * 80  # about 15 kB
    dense = {lang: "\n".join(p.text for p in every if p.lang == lang) for lang in ("en", "zh-Hans", "ja")}
    return {
        "question, then a 15 kB pasted traceback": [t + "\n" + paste for t in texts[:60]],
        "15 kB pasted traceback, then the question": [paste + "\n" + t for t in texts[:60]],
        "question in a 200 kB paste": [paste * 13 + t + paste for t in texts[:10]],
        "worst case: 8 kB of dense prose, every line a labelled prompt": [
            (text * 3)[:8000] for text in dense.values()],
    }


if __name__ == "__main__":
    raise SystemExit(main())

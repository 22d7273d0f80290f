"""Train the past-work word model on the train split and write ``indexer/agents/recall_model.tsv``.

    python scripts/train_recall_model.py            # retrain and write the file
    python scripts/train_recall_model.py --check    # exit 1 if the file is not what training gives

Run it after changing the cues, the model features or the labelled prompts; the test suite fails
until the shipped file matches. Prints the size of the model and its fit on each split.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "support")]

from indexer.agents.recall import MODEL_FILE, detect_recall  # noqa: E402
from recall_model_training import model_text, train_word_model  # noqa: E402
from recall_scoring import format_table, load_prompts, score  # noqa: E402

MODEL_PATH = ROOT / "indexer" / "agents" / MODEL_FILE


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the shipped file")
    args = parser.parse_args(argv)
    train = load_prompts(split="train")
    started = time.perf_counter()
    model = train_word_model(train)
    text = model_text(model, len(train))
    print(f"Trained on {len(train)} prompts in {time.perf_counter() - started:.1f} s: "
          f"{len(model.weights)} weights, {len(text.encode()) // 1024} kB")
    if args.check:
        same = MODEL_PATH.is_file() and MODEL_PATH.read_text(encoding="utf-8") == text
        print(f"{MODEL_PATH.name} is {'up to date' if same else 'OUT OF DATE: run this script'}")
        return 0 if same else 1
    MODEL_PATH.write_text(text, encoding="utf-8")
    print(f"Wrote {MODEL_PATH.relative_to(ROOT)}")
    for split in ("train", "heldout"):
        table = score(load_prompts(split=split), lambda t: detect_recall(t, model) is not None)
        print(f"\nWith it, on the {split} split:\n{format_table(table)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

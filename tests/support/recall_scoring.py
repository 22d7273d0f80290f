"""Score a past-work detector on the labelled prompts in tests/data/recall/prompts.jsonl.

Shared by ``bench/quality/recall_eval.py`` (prints the table) and ``tests/core/agents/test_recall_quality.py``
(holds the floor), so both count the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

PROMPTS = Path(__file__).resolve().parents[1] / "data" / "recall" / "prompts.jsonl"
LANGUAGES = ("en", "zh-Hant", "zh-Hans", "ja")
SPLITS = ("train", "heldout", "all")
KINDS = ("trigger", "subtle", "hard", "plain")  # trigger/subtle are positives, hard/plain negatives


@dataclass(frozen=True, slots=True)
class LabelledPrompt:
    """One prompt and whether it refers to past work."""

    text: str
    lang: str
    label: bool
    kind: str
    split: str
    note: str = ""


@dataclass(slots=True)
class Scores:
    """Confusion counts for one language (or all), with the usual ratios."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    errors: list[tuple[LabelledPrompt, bool]] = field(default_factory=list)

    def add(self, prompt: LabelledPrompt, predicted: bool) -> None:
        if predicted and prompt.label:
            self.tp += 1
        elif predicted:
            self.fp += 1
        elif prompt.label:
            self.fn += 1
        else:
            self.tn += 1
        if predicted != prompt.label:
            self.errors.append((prompt, predicted))

    @property
    def count(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float:
        # Nothing predicted means no false alarm: precision 1.0, and recall shows the miss.
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def accuracy(self) -> float:
        return (self.tp + self.tn) / self.count if self.count else 0.0


class PromptFileError(ValueError):
    """The labelled set has a line that cannot be read: a one-line reason with its number."""


def load_prompts(path: Path = PROMPTS, split: str = "all") -> list[LabelledPrompt]:
    """The labelled prompts of ``split`` ("train", "heldout" or "all")."""
    if split not in SPLITS:
        raise PromptFileError(f"unknown split {split!r}: expected one of {', '.join(SPLITS)}")
    prompts = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            prompt = LabelledPrompt(text=row["text"], lang=row["lang"], label=bool(row["label"]),
                                    kind=row["kind"], split=row["split"], note=row.get("note", ""))
        except (ValueError, KeyError, TypeError) as exc:
            raise PromptFileError(f"{path.name}:{number}: not a labelled prompt ({exc})") from None
        if prompt.lang not in LANGUAGES or prompt.kind not in KINDS or prompt.split not in SPLITS[:2]:
            raise PromptFileError(f"{path.name}:{number}: unknown lang, kind or split")
        if split in ("all", prompt.split):
            prompts.append(prompt)
    return prompts


def score(prompts: Iterable[LabelledPrompt], detect: Callable[[str], bool]) -> dict[str, Scores]:
    """Scores per language, and over all languages under "all"."""
    table = {lang: Scores() for lang in (*LANGUAGES, "all")}
    for prompt in prompts:
        predicted = bool(detect(prompt.text))
        table[prompt.lang].add(prompt, predicted)
        table["all"].add(prompt, predicted)
    return table


def format_table(table: dict[str, Scores]) -> str:
    """A Markdown table: one row per language, then all."""
    lines = ["| language | n | pos | precision | recall | F1 | accuracy | TP | FP | FN | TN |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for lang, s in table.items():
        name = f"**{lang}**" if lang == "all" else lang
        lines.append(f"| {name} | {s.count} | {s.tp + s.fn} | {s.precision:.2f} | {s.recall:.2f} | "
                     f"{s.f1:.2f} | {s.accuracy:.2f} | {s.tp} | {s.fp} | {s.fn} | {s.tn} |")
    return "\n".join(lines)

"""Train the past-work word model (``indexer.agents.recall.WordModel``) on the labelled prompts.

Shared by ``scripts/train_recall_model.py`` (writes ``indexer/agents/recall_model.tsv``) and the test that
checks the shipped file is exactly what training gives, so it is never edited by hand and never
falls behind the cues, the features or the set. Plain stochastic gradient descent, seeded, with
features in sorted order: the same prompts give the same file on every machine.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable

from indexer.agents.recall import WordModel, find_cues, model_features
from recall_scoring import LabelledPrompt

EPOCHS, RATE, L2 = 40, 0.3, 1e-3
PRUNE = 0.3  # weights smaller than this are dropped, then the rest refitted: a small file
THRESHOLD = 0.85  # the model fires alone only when this sure

Rows = list[tuple[tuple[str, ...], float]]


def _fit(rows: Rows) -> tuple[float, dict[str, float]]:
    bias, weights = 0.0, {}
    order = list(range(len(rows)))
    shuffle = random.Random(0).shuffle
    for _ in range(EPOCHS):
        shuffle(order)
        for i in order:
            features, label = rows[i]
            z = bias + sum(weights.get(f, 0.0) for f in features)
            gradient = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))) - label
            bias -= RATE * gradient
            for f in features:
                w = weights.get(f, 0.0)
                weights[f] = w - RATE * (gradient + L2 * w)
    return bias, weights


def train_word_model(prompts: Iterable[LabelledPrompt]) -> WordModel:
    rows = [(tuple(sorted(model_features(p.text, find_cues(p.text)))), float(p.label)) for p in prompts]
    _, weights = _fit(rows)
    kept = {f for f, w in weights.items() if abs(w) >= PRUNE}
    bias, weights = _fit([(tuple(f for f in features if f in kept), label) for features, label in rows])
    return WordModel(round(bias, 4), THRESHOLD, {f: round(w, 4) for f, w in sorted(weights.items())})


def model_text(model: WordModel, trained_on: int) -> str:
    """The model as ``recall_model.tsv``: "name<TAB>value" lines."""
    lines = [
        "# The past-work word model: a logistic regression over indexer.agents.recall.model_features, trained",
        f"# by scripts/train_recall_model.py on the {trained_on} prompts of the train split. Do not edit by hand.",
        f"bias\t{model.bias}",
        f"threshold\t{model.threshold}",
    ]
    lines += [f"{feature}\t{weight}" for feature, weight in model.weights.items()]
    return "\n".join(lines) + "\n"

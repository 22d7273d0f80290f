"""The past-work detector holds its quality floor on the labelled prompts, per language."""

from __future__ import annotations

import re

import pytest

from pathlib import Path

from indexer.agents.recall import MODEL_FILE, WordModel, _cue_tables, _searchable_prose, detect_recall, to_simplified
from indexer.agents.recall_cues import EN_CUES, JA_CUES, ZH_CUES
from recall_model_training import model_text, train_word_model
from recall_scoring import LANGUAGES, PromptFileError, Scores, load_prompts, score

MODEL_PATH = Path(__file__).resolve().parents[3] / "indexer" / "agents" / MODEL_FILE

# (precision, recall) per split and language: what bench/quality/recall_eval.py printed when they were last
# raised (issue 37, Japanese batches 11-27), rounded down. A change may raise them, never lower them; the
# Simplified Chinese held-out recall floor went from 0.97 to 0.94 when batch 28 (20 fresh positives,
# scored blind) joined that split, the figure it measures no longer being the same set's.
FLOORS = {
    "train": {"en": (0.99, 1.00), "zh-Hant": (1.00, 1.00), "zh-Hans": (1.00, 1.00), "ja": (0.99, 1.00)},
    "heldout": {"en": (0.97, 0.89), "zh-Hant": (0.94, 0.94), "zh-Hans": (0.94, 0.94), "ja": (0.96, 0.97)},
}


@pytest.mark.parametrize("split", ["train", "heldout"])
def test_precision_and_recall_hold_in_every_language(split):
    table = score(load_prompts(split=split), lambda text: detect_recall(text) is not None)
    for lang in LANGUAGES:
        s, (precision_floor, recall_floor) = table[lang], FLOORS[split][lang]
        assert s.precision >= precision_floor, (lang, split, s.precision, [p.text for p, _ in s.errors])
        assert s.recall >= recall_floor, (lang, split, s.recall, [p.text for p, _ in s.errors])


def test_the_labelled_set_is_big_varied_and_split():
    prompts = load_prompts()
    assert len(prompts) >= 400
    assert len({p.text for p in prompts}) == len(prompts)
    for lang in LANGUAGES:
        assert sum(p.lang == lang for p in prompts) >= 130, lang
    assert sum(p.kind == "hard" for p in prompts) / len(prompts) >= 0.40
    assert all(p.label == (p.kind in ("trigger", "subtle")) for p in prompts)
    heldout = [p for p in prompts if p.split == "heldout"]
    assert 0.2 <= len(heldout) / len(prompts) <= 0.35
    for lang in LANGUAGES:
        assert any(p.lang == lang and p.label for p in heldout)
        assert any(p.lang == lang and not p.label for p in heldout)


def test_needles_never_hide_a_match():
    """A cue skips a text without its needles: that must never lose a match the pattern finds."""
    for prompt in load_prompts():
        prose, _ = _searchable_prose(prompt.text)
        for _, text, cues in _cue_tables(prose):
            for cue in cues:
                full = [m.span() for m in cue.pattern.finditer(text) if m.end() > m.start()]
                assert [m.span() for m in cue.finditer(text)] == full, (cue.name, prompt.text)


def test_every_cue_is_used_by_the_labelled_set():
    """A cue that nothing in the set matches is untested: add prompts for it or drop it."""
    used = set()
    for prompt in load_prompts():
        prose, _ = _searchable_prose(prompt.text)
        for language, text, cues in _cue_tables(prose):
            used |= {(language, cue.name) for cue in cues if cue.finditer(text)}
    every = {(lang, c.name) for lang, table in (("en", EN_CUES), ("zh", ZH_CUES), ("ja", JA_CUES)) for c in table}
    assert every - used == set()


def test_each_cue_is_named_once_per_language():
    """Evidence counts a cue once by its name: a second cue of the same name would never add."""
    for table in (EN_CUES, ZH_CUES, JA_CUES):
        names = [cue.name for cue in table]
        assert sorted(names) == sorted(set(names)), [n for n in set(names) if names.count(n) > 1]


def test_folding_keeps_offsets():
    text = "延續昨天的工作，Last Time 還記得嗎？「ＦＴＳ５」…İ"
    folded = to_simplified(text)
    assert len(folded) == len(text)
    assert folded == "延续昨天的工作,last time 还记得吗?'fts5'.İ"  # "İ" would lower to two characters


def test_scores_count_the_usual_way():
    s = Scores(tp=8, fp=2, fn=2, tn=8)
    assert (s.precision, s.recall, s.accuracy) == (0.8, 0.8, 0.8)
    assert Scores(fn=3).precision == 1.0 and Scores(fn=3).recall == 0.0


def test_a_broken_line_in_the_set_is_one_clear_error(tmp_path):
    bad = tmp_path / "prompts.jsonl"
    bad.write_text('{"text": "ok", "lang": "en", "label": 0, "kind": "plain", "split": "train"}\n{"text": \n',
                   encoding="utf-8")
    with pytest.raises(PromptFileError, match=re.escape("prompts.jsonl:2")):
        load_prompts(bad)


def test_the_shipped_model_is_what_training_gives():
    """Cues, features or prompts changed without retraining: run scripts/train_recall_model.py."""
    train = load_prompts(split="train")
    assert MODEL_PATH.read_text(encoding="utf-8") == model_text(train_word_model(train), len(train))


def test_the_model_decides_only_when_the_cues_fall_short_and_it_is_sure():
    model = WordModel(bias=-4.0, threshold=0.9, weights={"wrollout": 3.0, "bback up": 4.0})
    sure = detect_recall("ok, the rollout: back up to speed please", model)
    assert sure is not None and sure.phrase == "back up" and sure.model_probability > 0.9
    assert detect_recall("the rollout is slow", model) is None  # not sure enough
    cued = detect_recall("didn't we fix the rollout before?", model)
    assert cued is not None and cued.model_probability is None  # the cues decided
    assert WordModel.parse(model_text(model, 1)) == model

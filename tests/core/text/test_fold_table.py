"""The Traditional → Simplified table the indexes fold with ships as a file
(``indexer/text/fold_table.txt``): it must be what OpenCC's ``t2s`` gives one character at a
time (``scripts/make_fold_table.py`` writes it again after an OpenCC upgrade)."""

from __future__ import annotations

import pytest

from indexer.text import fold


def test_the_shipped_table_is_what_opencc_makes():
    with open(fold.TABLE_FILE, encoding="utf-8") as fh:
        shipped = fold.table_from_text(fh.read())
    made = fold.table_from_opencc()
    assert len(made) > 4000
    assert shipped == made, f"{len(set(shipped.items()) ^ set(made.items()))} entries differ: run scripts/make_fold_table.py"


def test_the_table_a_process_folds_with_is_the_shipped_one():
    assert fold.fold_table() == fold.table_from_text(fold.table_text(fold.table_from_opencc()))
    assert fold.fold("遷移到新的資料庫") == "迁移到新的资料库"
    assert fold.index_form("迁移") is None and fold.index_form("設定") == "设定"


@pytest.mark.parametrize("translated_first", [fold.TRANSLATED_FIRST, 0])
def test_fold_changes_each_character_the_table_folds_and_nothing_else(monkeypatch, translated_first):
    """Translated whole (a process's first characters) or only its runs of foldable characters
    (after): the result is the whole text put through the table, character by character,
    whatever the mix of scripts."""
    import random

    monkeypatch.setattr(fold, "TRANSLATED_FIRST", translated_first)
    monkeypatch.setattr(fold, "_translated", 0)

    table = fold.fold_table()
    keys = [chr(code) for code in table]
    pool = keys[:400] + list(table.values())[:400] + list("abc xyz\n\t{}\"'é日本語カナ한국어🎉") + ["\ud800"]
    rng = random.Random(38)
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(1, 300))) for _ in range(300)]
    texts += ["".join(keys), "plain ASCII only", "简体中文没有繁体字", "設定 " * 50]
    for text in texts:
        assert fold.fold(text) == text.translate(table)
    if translated_first == 0:
        assert fold._fold_runs.cache_info().currsize == 1  # the runs' pattern did the folding

"""The prompt detector: phrases pointing at past work in Chinese, Japanese and English."""

from __future__ import annotations

import pytest

from indexer.agents.recall import detect_recall, extract_terms

TRIGGERS = [
    # Chinese (traditional and simplified)
    ("zh", "我記得上次修過 sqlite 鎖的問題"),
    ("zh", "我记得我们改过 theme 的加载"),
    ("zh", "我们之前是怎么修这个 bug 的？"),
    ("zh", "之前那个 WAL checkpoint 的问题怎么解决的"),
    ("zh", "上次的 migration 脚本放在哪里"),
    ("zh", "你还记得吗，FTS5 trigram 那个"),
    ("zh", "翻一下之前的对话，看看 ruff 是怎么配的"),
    ("zh", "查一下聊天记录里 WAL 的讨论"),
    ("zh", "以前我们用过 poetry 吗"),
    # Japanese
    ("ja", "前回の migration どうやったっけ"),
    ("ja", "この前の WAL の件、覚えてる？"),
    ("ja", "以前の実装ではキャッシュしていた"),
    ("ja", "前にも同じ TypeError が出た"),
    # ... 前回 with what a session leaves, in the person's own words (issue 37: these were vetoed)
    ("ja", "前回のやつ、staging でも流して"),
    ("ja", "前回ハマった証明書のエラー、また出てる"),
    ("ja", "前回言ってた Biome への移行、始めましょうか"),
    ("ja", "前回修正しましたが、別の箇所でまたテストが落ちています"),
    ("ja", "前回の要領で API のテストも書いて"),
    # ... and without 前回 (these were missed)
    ("ja", "前と同じ設定で profile を取って"),
    ("ja", "あの件どうなった？ S3 のやつ"),
    ("ja", "一度直したのにまた flaky になってる"),
    ("ja", "保留にしてた認証の件、決めよう"),
    # ... asked how it was done, or "the same as usual" (round 15, batch 26)
    ("ja", "Redis の接続がタイムアウトする問題、以前どう片付けたか探して"),
    ("ja", "いつもと同じ構成で FastAPI のプロジェクトを作って"),
    # English
    ("en", "didn't we fix this before?"),
    ("en", "Last time we hit the sqlite busy error"),
    ("en", "Previously, we used poetry."),
    ("en", "Remember how we fixed the WAL checkpoint?"),
    ("en", "did we ever add a --json flag to sessions?"),
    ("en", "Have you seen this TypeError before?"),
    ("en", "we fixed this before, the import_hygiene test"),
    ("en", "in a previous session we wrote parse_query"),
    ("en", "do it like before"),
    ("en", "Do you remember the cache key format?"),
]

NOT_TRIGGERS = [
    "remember to run tests",
    "Remember to run the tests before you commit",
    "previously_defined_var is undefined",
    "lasttime = 3",
    "set the last time value in the config",
    "rename last_time to last_seen",
    "Restore the previously selected row",
    "It should remember how many rows were selected",
    "we handled the error before calling save()",
    "make sure you remember the user choice",
    "Use `last time` as the column label",
    "```\n# previously: did we?\n```\nformat this block",
    "add a CLI flag for --json",
    "记得跑测试",
    "提交之前先跑测试",
    "在部署之前，确认配置",
    "帮我查一下这个函数的文档",
    "翻一下 threadback 的索引代码",  # browsing today's code, not past work
    "五点以前完成",
    "この前提で実装して",
    # 前回 and its neighbours as a program's state or another word (issue 37)
    "前回の入力内容をフォームに復元する処理を入れて",
    "前回の続きから再生するボタンを付けて",
    "前回と今回の計測値を並べて表示して",
    "前回のコマンドの終了コードをプロンプトに出して",
    "前回リリースからの変更を CHANGELOG に出すコマンドは？",
    "この前処理を numpy で書き直して",
    "この前後 5 行も表示して",
    "いつもの挙動と違うときだけログを出して",
    "いつもと同じ結果になるように乱数のシードを固定して",
    "さっき書いてくれた関数に docstring を追加して",  # what you did for me, just now: this conversation
    "購入履歴を検索する API を作って",
    "以前共有されたリンクを全部無効にして",
    "覚えておいてください",
    "コミットする前にテストして",
    "",
    "   ",
]


@pytest.mark.parametrize("language,prompt", TRIGGERS)
def test_detects_phrases_that_point_at_past_work(language, prompt):
    match = detect_recall(prompt)
    assert match is not None, prompt
    assert match.phrase and match.phrase in prompt


@pytest.mark.parametrize("prompt", NOT_TRIGGERS)
def test_ordinary_prompts_do_not_trigger(prompt):
    assert detect_recall(prompt) is None


def test_terms_keep_code_and_cjk_and_drop_triggers_and_stop_words():
    m = detect_recall("didn't we fix the FTS5 trigram tokenizer in search.py before?")
    assert m is not None
    assert "search.py" in m.terms and "FTS5" in m.terms
    assert not {"didn", "fix", "before", "we", "the"} & {t.lower() for t in m.terms}
    m = detect_recall("我記得上次修過 sqlite 的設定檔")
    assert m is not None and "sqlite" in m.terms
    assert not any("記得" in t or "上次" in t for t in m.terms)
    assert any("設定檔" in t for t in m.terms)


def test_terms_between_trigger_words_are_kept():
    m = detect_recall("Have you seen this TypeError before?")
    assert m is not None and m.terms == ("TypeError",)


def test_terms_are_capped_and_safe_for_the_query_parser():
    terms = extract_terms("previously agent:codex -rf alpha_beta gamma.delta epsilon_zeta eta/theta iota")
    assert len(terms) <= 4
    assert '"agent:codex"' in terms  # would otherwise be read as a filter
    assert all(not t.startswith("-") for t in terms)


def test_query_and_any_query():
    m = detect_recall("Last time the parse_query tokenizer broke on WAL")
    assert m is not None
    assert m.query == " ".join(m.terms)
    assert m.any_query == " OR ".join(m.terms)


# The examples named in issue 14: misses of the first detector, and its false alarms.
ISSUE_MISSES = [
    "do it like we did in the auth refactor",
    "same trick as with the redis port",
    "pick up where we left off yesterday",
    "what was the command we used",
    "Same as before: bump the version",
    "延續昨天的工作",
    "照老办法",
    "老样子",
    "上周那个",
    "いつものやり方で",
    "先週の続き",
    "例の件",
    "前に使った",
]
ISSUE_FALSE_ALARMS = [
    "上次登入時間欄位",
    "缓存上次请求的结果",
    "前回ログイン日時",
    "以前端的角度",
    "以前のバージョンとの互換性",
    "Show the last time each cron job ran",
    "I've never seen this error before.",
    "Have you ever used Redis streams?",
]


@pytest.mark.parametrize("prompt", ISSUE_MISSES)
def test_subtle_references_to_past_work_are_caught(prompt):
    assert detect_recall(prompt) is not None


@pytest.mark.parametrize("prompt", ISSUE_FALSE_ALARMS)
def test_the_same_words_in_another_sense_are_not(prompt):
    assert detect_recall(prompt) is None


@pytest.mark.parametrize("prompt,terms", [
    ("same trick as with the redis port", ("redis", "port")),
    ("前回の migration どうやったっけ", ("migration",)),
    ("以前の実装ではキャッシュしていたはず", ("実装", "キャッシュ")),
    ("你上周整理 tui/screens 的那套方法，现在用到 tui/widgets 上", ("tui/screens", "用到", "tui/widgets")),
])
def test_terms_are_the_topic_not_the_trigger(prompt, terms):
    m = detect_recall(prompt)
    assert m is not None and m.terms == terms


def test_trigger_words_do_not_become_terms():
    m = detect_recall("延續昨天的工作，把 ingest 拆成三個模組")
    assert m is not None and "ingest" in m.terms
    assert not any(word in term for term in m.terms for word in ("延續", "昨天", "工作"))


def test_talk_about_the_current_conversation_counts_against():
    assert detect_recall("you wrote the parser last week") is not None
    assert detect_recall("the function you just wrote last week broke") is None


def test_a_phrase_after_a_long_paste_is_found_where_it_is():
    paste = "```\n" + "E   sqlite3.OperationalError: database is locked\n" * 300 + "```\n"
    prompt = paste + "didn't we fix this before?"
    m = detect_recall(prompt)
    assert m is not None and prompt[m.start:m.end] == m.phrase == "didn't we"


def test_a_phrase_inside_a_long_paste_is_not_read():
    prompt = "x " * 3000 + "didn't we fix this before? " + "y " * 3000 + "rename the module"
    assert detect_recall(prompt) is None


def test_script_runs_match_the_pattern_they_stand_in_for():
    """Text with nothing from U+3040 up skips the wide CJK pattern; the runs are the same."""
    import random
    import re

    from indexer.agents import recall

    def by_pattern(text):
        return [(m.start(), m.group(), m.group("cjk") is not None)
                for m in re.finditer(recall._CJK_RUN_OR_OTHER, text)]

    rng = random.Random(5)
    pool = [*"ab c\n.-_/", "中", "文", "か", "\u3039", "\u303f", "\u3040", "😀", "，", "한"]
    for _ in range(3000):
        text = "".join(rng.choice(pool) for _ in range(rng.randrange(0, 30)))
        assert recall._script_runs(text) == by_pattern(text), text

"""A query in Chinese or Japanese finds a session written in English through its developer words
(``indexer.search.glossary``), an English query finds one written in Chinese or Japanese, and
neither pushes a session in the query's own language down."""

from __future__ import annotations

import json

import pytest

from indexer import Index, only_roots
from indexer.search.glossary import cjk_words, english_words
from indexer.search.recall_words import script_versions
from indexer.text.fold import fold


@pytest.mark.parametrize("run, expected", [
    ("数据库被锁住了", ["database", "locked"]),
    ("タイムアウトでテストが落ちる", ["timeout", "test"]),
    ("内存泄漏", ["memory", "leak"]),  # the longest term wins over its parts
])
def test_developer_words_have_their_english(run, expected):
    assert english_words(fold(run)) == expected


def test_a_traditional_query_reaches_the_list_through_its_simplified_form():
    words = [w for form in script_versions("資料庫被鎖") for w in english_words(fold(form))]
    assert "database" in words and "locked" in words


def test_plain_words_have_none():
    assert english_words(fold("今天天气很好")) == []
    assert cjk_words("systemd") == ("", "")


@pytest.mark.parametrize("word, expected", [
    ("database", ("数据库", "データベース")),  # the entry that is the word alone, not 数据表 "table"
    ("timezone", ("时区", "タイムゾーン")),
    ("config", ("配置", fold("設定"))),  # Japanese kanji as the index holds them (folded)
    ("start", ("启动", "")),
])
def test_english_words_have_their_chinese_and_japanese(word, expected):
    assert cjk_words(word) == expected


def _session(folder, sid: str, texts: list[str]) -> None:
    records, parent = [], None
    for i, text in enumerate(texts):
        role = "user" if i % 2 == 0 else "assistant"
        message = {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}],
                   **({"id": f"m{sid}{i}", "model": "x"} if role == "assistant" else {})}
        records.append({"type": role, "uuid": f"{sid}-{i}", "parentUuid": parent, "sessionId": sid, "cwd": "/w/app",
                        "timestamp": f"2026-03-0{i + 1}T10:00:00.000Z", "message": message})
        parent = f"{sid}-{i}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


ENGLISH = "aaaa0000-0000-4000-8000-000000000001"
CHINESE = "bbbb0000-0000-4000-8000-000000000002"
OTHER = "cccc0000-0000-4000-8000-000000000003"


def _three_sessions(tmp_path, english: list[str], chinese: list[str]):
    """An index of a session in English, one in Chinese and one about something else; returns
    a function giving the sessions a query finds, best first."""
    logs = tmp_path / "logs" / "-w-app"
    _session(logs, ENGLISH, english)
    _session(logs, CHINESE, chinese)
    _session(logs, OTHER, ["make the login page load faster", "Cached the avatar images."])
    with Index(tmp_path / "index.sqlite3") as index:
        index.update(only_roots({"claude-code": [tmp_path / "logs"]}), now=0, archive=False)

    def found(query: str) -> list[str]:
        with Index(tmp_path / "index.sqlite3", readonly=True) as index:
            return [s.session.session_id for s in index.search(query, by_session=True, limit=10).sessions]
    return found


def test_a_chinese_query_finds_the_english_session_and_the_chinese_one_first(tmp_path):
    found = _three_sessions(tmp_path, ["the workers fail: the database is locked when two jobs write",
                                       "Turned on WAL and a busy timeout so the second writer waits."],
                            ["数据库被锁住了，两个任务同时写入时报错", "打开 WAL 并设置 busy_timeout。"])
    chinese_query = found("数据库锁住")
    assert chinese_query[0] == CHINESE
    assert ENGLISH in chinese_query and OTHER not in chinese_query
    assert [s for s in found("数据库 锁") if s != CHINESE][:1] == [ENGLISH]


def test_an_english_query_finds_the_chinese_session_and_the_english_one_first(tmp_path):
    found = _three_sessions(tmp_path, ["the new deploy broke checkout: do a rollback of the release",
                                       "Reverted to the previous image and redeployed."],
                            ["新版本部署以后页面报错，需要回滚", "已经回滚到上一个版本。"])
    english_query = found("deploy rollback")
    assert english_query[0] == ENGLISH  # it holds the query's own words
    assert CHINESE in english_query and OTHER not in english_query
    assert found("rollback version")[0] == CHINESE

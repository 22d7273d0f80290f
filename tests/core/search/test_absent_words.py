"""A two-character CJK word found in no message makes the exact answer empty at once (one
lookup in the bigram index) instead of a walk over the messages holding the query's other words;
the answer is the same either way."""

from __future__ import annotations

import json

from indexer import Index, only_roots
from indexer.search import fts


def _build(tmp_path, texts: list[str]) -> Index:
    folder = tmp_path / "logs" / "-w-app"
    folder.mkdir(parents=True)
    for n, text in enumerate(texts):
        sid = f"aaaa{n:04d}-0000-4000-8000-000000000000"
        rec = {"type": "user", "uuid": f"u{n}", "parentUuid": None, "sessionId": sid, "cwd": "/w/app",
               "timestamp": "2026-03-01T10:00:00.000Z", "message": {"role": "user", "content": text}}
        (folder / f"{sid}.jsonl").write_text(json.dumps(rec, ensure_ascii=False) + "\n", encoding="utf-8")
    index = Index(tmp_path / "index.sqlite3")
    index.update(only_roots({"claude-code": [tmp_path / "logs"]}), now=0, archive=False)
    return index


def test_a_missing_cjk_word_skips_the_walk_and_a_present_one_does_not(tmp_path, monkeypatch):
    index = _build(tmp_path, ["deploy the app to staging", "deploy 驗收 passed on staging"])
    walks = []
    real = fts._message_view
    monkeypatch.setattr(fts, "_message_view", lambda *a, **k: walks.append(1) or real(*a, **k))
    found = index.search("deploy 驗收", limit=10)
    assert [h.message.text for h in found.hits][:1] == ["deploy 驗收 passed on staging"] and found.exact_total == 1
    assert walks
    walks.clear()
    missing = index.search("deploy 測資", limit=10)
    assert missing.exact_total == 0 and not walks  # answered without walking the messages
    assert {h.message.text for h in missing.hits} >= {"deploy the app to staging"}  # closest: some words
    sessions = index.search("deploy 測資", limit=10, by_session=True)
    assert sessions.exact_total == 0 and len(sessions.sessions) == 2
    index.close()

"""The side file (2-character CJK index and second trigram shard) pairs with its index, heals
when it is missing, damaged or from an older schema, and never misses a message the main
file holds."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.store import side_file
from indexer.store import connection, migrations, schema

from conftest import FIXED_NOW


def write_session(folder: Path, sid: str, texts: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"{sid}.jsonl"
    lines = [
        json.dumps({"type": "user", "uuid": f"{sid}-{i}", "sessionId": sid, "cwd": "/w/demo",
                    "timestamp": f"2026-03-01T10:{i:02d}:00Z", "message": {"role": "user", "content": text}},
                   ensure_ascii=False)
        for i, text in enumerate(texts)
    ]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


@pytest.fixture
def indexed(tmp_path):
    root = tmp_path / "projects"
    write_session(root / "-w-demo", "s-one", ["請幫我驗收這個功能", "english only words here"])
    write_session(root / "-w-demo", "s-two", ["設定檔案放在哪裡", "驗收標準是什麼"])
    index = Index(tmp_path / "index.sqlite3")
    index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)
    return root, index


def two_char_hits(index: Index, word: str) -> list[str]:
    return sorted(h.message.text for h in index.search(word).hits)


def update(index: Index, root: Path):
    return index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)


def test_bigrams_live_in_the_side_file_not_the_main_one(indexed):
    _root, index = indexed
    assert two_char_hits(index, "驗收") == ["請幫我驗收這個功能", "驗收標準是什麼"]
    main_tables = {r[0] for r in index.conn.execute("SELECT name FROM main.sqlite_master")}
    assert "cjk2" not in main_tables
    side = sqlite3.connect(side_file.side_path(index.path))
    # The side file's indexes hold the Traditional/Simplified-folded text (indexer.text.fold).
    assert side.execute("SELECT count(*) FROM cjk2 WHERE cjk2 MATCH '\"验收\"'").fetchone()[0] == 2
    side.close()


def without_side_file(index: Index) -> Path:
    """Close ``index`` and delete its side file; returns the index path."""
    index.close()
    for f in side_file.side_files(index.path):
        f.unlink(missing_ok=True)
    return index.path


def test_a_deleted_side_file_is_refilled_by_the_next_run(indexed):
    root, index = indexed
    path = without_side_file(index)
    reader = Index(path, readonly=True)
    assert two_char_hits(reader, "設定") == []  # no crash, just nothing until the next run
    assert reader.search("english only").hits
    reader.close()
    index = Index(path)
    update(index, root)
    assert two_char_hits(index, "設定") == ["設定檔案放在哪裡"]


def test_a_damaged_side_file_is_replaced_and_refilled(indexed):
    root, index = indexed
    path = without_side_file(index)
    side_file.side_path(path).write_bytes(b"not a database at all " * 200)
    index = Index(path)
    update(index, root)
    assert two_char_hits(index, "驗收") == ["請幫我驗收這個功能", "驗收標準是什麼"]


def test_a_side_file_from_another_index_is_not_trusted(indexed, tmp_path):
    root, index = indexed
    other_root = tmp_path / "other"
    write_session(other_root / "-w-x", "s-other", ["白話一點說明"])
    other = Index(tmp_path / "other.sqlite3")
    update(other, other_root)
    other.close()
    index.close()
    for mine, theirs in zip(side_file.side_files(index.path), side_file.side_files(other.path)):
        mine.unlink(missing_ok=True)
        if theirs.exists():
            mine.write_bytes(theirs.read_bytes())
    index = Index(index.path)
    update(index, root)
    assert two_char_hits(index, "白話") == []
    assert two_char_hits(index, "驗收") == ["請幫我驗收這個功能", "驗收標準是什麼"]


def test_a_version_1_index_migrates_keeping_two_character_search_and_counts(indexed):
    root, index = indexed
    path = index.path
    index.close()
    # Make it look like the first release wrote it: bigrams in the main file, no side file.
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE VIRTUAL TABLE cjk2 USING fts5(grams, content='', tokenize='unicode61', detail='none', columnsize=0)")
    conn.execute("DELETE FROM meta WHERE key IN ('side_token', 'message_count')")
    conn.execute("DROP INDEX files_missing")
    conn.execute("DROP INDEX files_by_stat")
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    for f in side_file.side_files(path):
        f.unlink(missing_ok=True)
    index = Index(path)
    assert index.conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    assert index.conn.execute("SELECT value FROM meta WHERE key = 'message_count'").fetchone()[0] == "4"
    # The logs are gone (pruned by their agent): the bigrams come back from stored messages.
    # (Logs still on disk are read again once by version 3, see test_parsers_upgrade.py.)
    shutil.rmtree(root)
    summary = update(index, root)
    assert summary.files_changed == 0  # the logs were not read again
    assert two_char_hits(index, "驗收") == ["請幫我驗收這個功能", "驗收標準是什麼"]
    names = {r[0] for r in index.conn.execute("SELECT name FROM main.sqlite_master")}
    assert "cjk2" not in names and {"files_missing", "files_by_stat"} <= names


def test_message_ids_are_never_handed_out_twice(indexed):
    root, index = indexed
    # A resume copy: every line a duplicate, kept for the copy's transcript but not indexed, while
    # ids and bigrams were handed out for all of them.
    copy = root / "-w-demo" / "s-copy.jsonl"
    copy.write_bytes((root / "-w-demo" / "s-two.jsonl").read_bytes())
    assert update(index, root).messages_added == 2
    write_session(root / "-w-demo", "s-new", ["部署流程改好了"])
    update(index, root)
    assert two_char_hits(index, "設定") == ["設定檔案放在哪裡"]  # not the new message as well
    assert two_char_hits(index, "部署") == ["部署流程改好了"]


def test_a_rewritten_file_leaves_no_findable_trace_of_its_old_text(indexed):
    root, index = indexed
    write_session(root / "-w-demo", "s-two", ["部署流程改好了"])
    update(index, root)
    assert index.stats().messages == 3
    assert two_char_hits(index, "設定") == []  # the old row's bigrams lead nowhere
    assert two_char_hits(index, "部署") == ["部署流程改好了"]


def test_a_stopped_run_keeps_every_stored_message_findable(tmp_path):
    root = tmp_path / "projects"
    for n in range(6):
        write_session(root / "-w-demo", f"s-{n}", [f"第{n}個驗收項目"])
    index = Index(tmp_path / "index.sqlite3")
    calls = {"n": 0}

    def stop_after_three() -> bool:
        calls["n"] += 1
        return calls["n"] > 3

    summary = index.update(only_roots({"claude-code": [root]}), should_stop=stop_after_three, now=FIXED_NOW)
    assert summary.stopped
    stored = index.stats().messages
    assert 0 < stored < 6
    assert len(two_char_hits(index, "驗收")) == stored
    update(index, root)
    assert len(two_char_hits(index, "驗收")) == 6


def test_rebuild_removes_the_side_file_too(indexed):
    _root, index = indexed
    index.close()
    assert side_file.side_path(index.path).exists()
    connection.remove_index_files(index.path)
    assert not any(f.exists() for f in connection.index_files(index.path))


def test_a_second_connection_that_saw_an_empty_file_finds_the_migration_done(tmp_path):
    """The app opens a new index from two threads at once (counts and the first index run)."""
    path = tmp_path / "index.sqlite3"
    late = sqlite3.connect(path, isolation_level=None)
    assert late.execute("PRAGMA user_version").fetchone()[0] == 0  # it saw an empty file...
    first = connection.connect(path)  # ...then another connection created the schema
    migrations.migrate(late, 0)  # and now the late one migrates from what it saw
    assert late.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
    assert late.execute("SELECT value FROM meta WHERE key = 'message_count'").fetchall() == [("0",)]
    late.close()
    first.close()


def test_traditional_text_is_found_by_its_simplified_form_in_either_trigram_table(tmp_path, monkeypatch):
    """Through the helper process, which sends the writer a file's folded text only when the
    main trigram table takes it: a file indexed in either table is found by the other form."""
    from indexer.ingest import helper, stream

    monkeypatch.setattr(stream, "PARALLEL_MIN_BYTES", 0)  # the helper for a small tree
    monkeypatch.setattr(helper, "SHARE_START", 0.5)  # every other file's text to the side file
    root = tmp_path / "projects"
    for n in range(8):
        write_session(root / "-w-demo", f"s-{n}", [f"數據庫連線逾時 第{n}次", f"plain words {n}"])
    with Index(tmp_path / "index.sqlite3") as index:
        index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)
        where = {r[0] for r in index.conn.execute("SELECT indexed FROM messages WHERE text LIKE '數據庫%'")}
        assert where == {side_file.IN_MAIN, side_file.IN_SIDE}
        found = {h.session.session_id for h in index.search("数据库连线逾时", limit=50, now=FIXED_NOW).hits}
        assert found == {f"s-{n}" for n in range(8)}

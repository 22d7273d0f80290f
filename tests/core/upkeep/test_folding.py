"""Traditional/Simplified folding: the fold itself, the index taking folded text, and an index
built before folding (schema 3) folded in place by its next index run."""

from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.ingest import prepare
from indexer.upkeep import refold
from indexer.store import side_file
from indexer.store.schema import SCHEMA_VERSION
from indexer.text.fold import fold, index_form, variants

from conftest import FIXED_NOW
from old_schemas import without_version_5


def test_the_fold_is_per_character_and_keeps_length():
    assert fold("遷移 冪等 回滾 連接池 耗盡") == "迁移 幂等 回滚 连接池 耗尽"
    assert fold("already simplified 迁移") == "already simplified 迁移"
    text = "後台匯出的 Excel 報表下載時檔名亂碼"
    assert len(fold(text)) == len(text)
    assert fold(text[3:9]) == fold(text)[3:9]  # a substring's fold is the fold's substring
    assert index_form("plain ascii") is None and index_form("迁移") is None
    assert index_form("遷移") == "迁移"
    assert set(variants("滚")) == {"滚", "滾"} and variants("a") == ("a",)


def write_session(folder: Path, sid: str, texts: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"type": "user", "uuid": f"{sid}-{i}", "sessionId": sid, "cwd": "/w/demo",
                    "timestamp": f"2026-03-01T10:{i:02d}:00Z", "message": {"role": "user", "content": text}},
                   ensure_ascii=False)
        for i, text in enumerate(texts)
    ]
    (folder / f"{sid}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def logs(tmp_path) -> Path:
    root = tmp_path / "projects"
    write_session(root / "-w-demo", "s-hant", ["orders 表加 shipped_at 欄位：冪等的遷移", "回滾用的 down 檔"])
    write_session(root / "-w-demo", "s-hans", ["把用户上传的文件迁移到新服务器", "kubectl rollout undo 回滚"])
    write_session(root / "-w-demo", "s-en", ["nothing chinese in here at all"])
    return root


def sessions_found(index: Index, query: str) -> set[str]:
    return {h.session.session_id for h in index.search(query, limit=50, closest=False).hits}


def update(index: Index, root: Path):
    return index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)


def test_either_script_finds_both(logs, tmp_path):
    index = Index(tmp_path / "index.sqlite3")
    update(index, logs)
    assert sessions_found(index, "冪等的遷移") == {"s-hant"}
    assert sessions_found(index, "幂等的迁移") == {"s-hant"}
    assert sessions_found(index, "回滚") == {"s-hant", "s-hans"}  # the 2-character index
    assert sessions_found(index, "回滾") == {"s-hant", "s-hans"}
    assert sessions_found(index, "迁移到新") == {"s-hans"}


def unfolded_index(monkeypatch, logs: Path, path: Path) -> None:
    """An index as schema 3 wrote it: nothing folded, no inode change times or failures table
    (schema 5); every other log's text in the side shard."""
    monkeypatch.setattr("indexer.ingest.prepare.index_form", lambda text: None)
    turns = itertools.cycle([True, False])
    real = prepare.prepare_with_side  # the stream takes it from there when it has logs to read
    monkeypatch.setattr(prepare, "prepare_with_side",
                        lambda writer, job, now, take_text: real(writer, job, now, take_text=next(turns)))
    index = Index(path)
    update(index, logs)
    index.close()
    monkeypatch.undo()
    without_version_5(path, version=3)
    side = sqlite3.connect(side_file.side_path(path), isolation_level=None)
    side.execute("DELETE FROM meta WHERE key = 'fold_done'")
    side.close()


def side_is_sound(path: Path) -> None:
    """FTS5's own check of every index, after the folding replaced entries in place."""
    side = sqlite3.connect(side_file.side_path(path), isolation_level=None)
    for table in ("fts_side", "cjk2"):
        side.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
    side.close()
    main = sqlite3.connect(path, isolation_level=None)
    main.execute("INSERT INTO fts(fts) VALUES ('integrity-check')")
    main.close()


def test_a_rewritten_log_replaces_its_folded_entries(logs, tmp_path):
    """The writer deletes old rows with what it inserted (the folded text): the index stays sound."""
    index = Index(tmp_path / "index.sqlite3")
    update(index, logs)
    write_session(logs / "-w-demo", "s-hant", ["改寫過的遷移紀錄"])  # rewritten in place: read again
    update(index, logs)
    assert sessions_found(index, "冪等的遷移") == set()
    assert sessions_found(index, "改写过的迁移") == {"s-hant"}
    # No entry of the old text is left behind in the trigram index (a delete with other values
    # than were inserted would leave them).
    assert index.conn.execute("SELECT count(*) FROM fts WHERE fts MATCH '\"幂等的迁移\"'").fetchone()[0] == 0
    index.close()
    side_is_sound(tmp_path / "index.sqlite3")


def test_an_unfolded_index_is_folded_in_place_by_the_next_run(logs, tmp_path, monkeypatch):
    path = tmp_path / "index.sqlite3"
    unfolded_index(monkeypatch, logs, path)
    index = Index(path)
    assert index.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    shards = {r[0] for r in index.conn.execute("SELECT DISTINCT indexed FROM messages WHERE indexed != 0")}
    assert shards == {1, 2}  # both trigram shards hold text to fold
    assert sessions_found(index, "幂等的迁移") == set()  # not folded yet
    log = logs / "-w-demo" / "s-hant.jsonl"
    log.unlink()  # its log is gone: the stored messages are folded all the same
    summary = update(index, logs)
    assert summary.files_changed == 0  # nothing was read again
    assert sessions_found(index, "幂等的迁移") == {"s-hant"}
    assert sessions_found(index, "回滚") == {"s-hant", "s-hans"}
    assert index.conn.execute("SELECT count(*) FROM meta WHERE key = 'fold_below'").fetchone()[0] == 0
    # The unfolded entries are gone, not left beside the folded ones.
    for table, old in (("fts", "冪等的遷移"), ("fts_side", "冪等的遷移"), ("cjk2", "冪等")):
        assert index.conn.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (f'"{old}"',)).fetchone()[0] == 0
    index.close()
    side_is_sound(path)


def test_folding_stopped_halfway_resumes_without_deleting_twice(logs, tmp_path, monkeypatch):
    path = tmp_path / "index.sqlite3"
    unfolded_index(monkeypatch, logs, path)
    monkeypatch.setattr(refold, "BATCH_IDS", 1)
    index = Index(path)
    calls = iter(range(1000))
    summary = index.update(only_roots({"claude-code": [logs]}), now=FIXED_NOW, should_stop=lambda: next(calls) >= 3)
    assert summary.stopped
    done = index.conn.execute("SELECT value FROM side.meta WHERE key = 'fold_done'").fetchone()[0]
    assert 0 < int(done) < int(index.conn.execute("SELECT value FROM meta WHERE key = 'fold_below'").fetchone()[0])
    update(index, logs)
    assert sessions_found(index, "幂等的迁移") == {"s-hant"}
    assert sessions_found(index, "回滚") == {"s-hant", "s-hans"}
    index.close()
    side_is_sound(path)

"""A transcript's tool output kept as references is read a batch at a time (each log looked up
and opened once): the batch gives exactly what reading each reference alone gives, placeholders
included, and the log each file id names is kept per connection without ever outliving the
index file it came from."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.archive.manifest import manifest_path
from indexer.archive.ranges import clear_range_cache
from indexer.store.log_ref import is_log_ref
from indexer.store.log_ref_reader import forget_texts_read, read_log_ref, read_log_refs
from indexer.store.packing import UNREADABLE

from conftest import FIXED_NOW


def _session(root: Path, sid: str, outputs: int) -> Path:
    """A Claude session of ``outputs`` tool results, each text different."""
    log = root / "-w-demo" / f"{sid}.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {"sessionId": sid, "cwd": "/w/demo"}
    lines = [{"type": "user", "uuid": f"{sid}-u", **env, "timestamp": "2026-03-01T10:00:00Z",
              "message": {"role": "user", "content": "run every step"}}]
    for i in range(outputs):
        ts = f"2026-03-01T10:{i + 1:02d}:00Z"
        lines.append({"type": "assistant", "uuid": f"{sid}-a{i}", **env, "timestamp": ts, "message": {
            "id": f"{sid}-m{i}", "role": "assistant", "model": "claude-x",
            "content": [{"type": "tool_use", "id": f"{sid}-t{i}", "name": "Bash", "input": {"command": f"step {i}"}}]}})
        lines.append({"type": "user", "uuid": f"{sid}-r{i}", **env, "timestamp": ts, "message": {
            "role": "user", "content": [{"type": "tool_result", "tool_use_id": f"{sid}-t{i}",
                                         "content": f"{sid} step {i}: 資料 ok \"quoted\"\n" * (20 + i)}]}})
    log.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return log


def _index(db: Path, root: Path, *, archive: bool) -> None:
    with Index(db) as index:
        index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW, archive=archive)


def _texts(db: Path) -> dict[tuple[str, int], str]:
    """Every message's text by (session id, ordinal), read as a fresh process reads them."""
    forget_texts_read()
    clear_range_cache()
    with Index(db) as index:
        return {(s.session_id, m.ordinal): m.text for s in index.sessions(limit=None) for m in index.messages(s)}


def _cold() -> None:
    forget_texts_read()
    clear_range_cache()


@pytest.mark.parametrize("copies", ["linked", "frames"])
def test_a_batch_reads_what_each_reference_read_alone_gives(tmp_path, request, copies):
    """Three logs: one kept, one deleted after indexing (its archived copy serves), one
    rewritten in place with no archived copy left (a placeholder for the output that changed);
    their references shuffled together with a damaged one and ones no log is known for."""
    if copies == "frames":
        request.getfixturevalue("frames_only")
    root = tmp_path / "logs"
    kept, deleted, rewritten = (_session(root, sid, 6) for sid in ("kept", "deleted", "rewritten"))
    _index(tmp_path / "packed" / "i.sqlite3", root, archive=False)
    truth = _texts(tmp_path / "packed" / "i.sqlite3")
    db = tmp_path / "refs" / "i.sqlite3"
    _index(db, root, archive=True)
    deleted.unlink()
    _index(db, root, archive=True)
    copy = manifest_path(tmp_path / "refs" / "archive", str(rewritten))
    for part in copy.parent.glob(f"{copy.stem}.*"):  # its manifest, if any, and its link or frames
        part.unlink()
    data = rewritten.read_bytes()
    rewritten.write_bytes(data.replace(b"rewritten step 3: ", b"REWRITTEN step 3: "))  # same length

    shown = _texts(db)
    changed = [k for k in truth if shown[k] != truth[k]]
    assert len(changed) == 1 and changed[0][0] == "rewritten" and shown[changed[0]].startswith(UNREADABLE)

    plain = sqlite3.connect(db)  # not the index's own connection: nothing is kept between reads
    rows = plain.execute("SELECT text, file_id FROM messages").fetchall()
    refs = [(value, file_id) for value, file_id in rows if is_log_ref(value)]
    assert len(refs) == 18
    refs += [(refs[0][0][:10], refs[0][1]), (refs[1][0], None), (refs[2][0], 999)]
    random.Random(3).shuffle(refs)
    each = []
    for value, file_id in refs:
        _cold()
        each.append(read_log_ref(value, file_id, plain))
    assert sum(text.startswith(UNREADABLE) for text in each) == 4
    with Index(db) as index:
        for conn in (plain, index.conn):
            _cold()
            assert read_log_refs(refs, conn) == each
            assert read_log_refs(refs, conn) == each  # again, from what was kept
    plain.close()


def test_a_rebuilt_index_never_reads_a_log_another_file_id_named(tmp_path):
    """``--rebuild`` numbers the logs afresh: the same Index, and the same process's caches,
    must read each session from its own log after it, not from the one its id named before."""
    root, aside = tmp_path / "logs", tmp_path / "aside"
    first, second = _session(root, "first", 5), _session(aside, "second", 5)
    db = tmp_path / "i.sqlite3"
    roots = only_roots({"claude-code": [root]})

    def move(log: Path, to: Path) -> None:
        (to / log.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.move(log, to / log.parent.name / log.name)

    def ids(index: Index) -> dict[str, int]:
        return {Path(p).stem: i for i, p in index.conn.execute("SELECT id, path FROM files")}

    with Index(db) as index:
        index.update(roots, now=FIXED_NOW, archive=True)  # "first" alone: id 1
        move(second, root)
        index.update(roots, now=FIXED_NOW, archive=True)  # then "second": id 2
        before = {s.session_id: [m.text for m in index.messages(s)] for s in index.sessions(limit=None)}
        numbered = ids(index)
        index.delete_files()
        move(first, aside)
        index.update(roots, now=FIXED_NOW, archive=True)  # "second" alone: now id 1
        move(aside / first.parent.name / first.name, root)
        index.update(roots, now=FIXED_NOW, archive=True)
        assert ids(index) == {"first": numbered["second"], "second": numbered["first"]}
        after = {s.session_id: [m.text for m in index.messages(s)] for s in index.sessions(limit=None)}
        assert after == before
        _cold()
        assert {s.session_id: [m.text for m in index.messages(s)] for s in index.sessions(limit=None)} == before
    assert not any(t.startswith(UNREADABLE) for texts in before.values() for t in texts)
    assert sum("first step 4" in t for t in before["first"]) == 1


def test_a_connection_asks_where_a_log_is_once(tmp_path):
    root = tmp_path / "logs"
    _session(root, "only", 8)
    db = tmp_path / "i.sqlite3"
    _index(db, root, archive=True)
    with Index(db) as index:
        asked: list[str] = []
        index.conn.set_trace_callback(asked.append)
        session = index.session("only")
        for _ in range(2):
            _cold()
            assert sum(m.text.startswith("only step") for m in index.messages(session)) == 8
        assert sum("database_list" in sql for sql in asked) == 1
        assert sum("FROM main.files" in sql for sql in asked) == 1

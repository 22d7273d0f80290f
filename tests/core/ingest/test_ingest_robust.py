"""One bad line or file never stops a run (issue 11): every bad class beside good logs, a file
that cannot be stored (in one process and with the helper process), files that keep failing,
roots spelled two ways, rewrites that hide behind a restored mtime."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer import Index, only_roots
from indexer.ingest import stream

from bad_logs import BAD_CLASSES, build
from cli_process import threadback_many
from conftest import FIXED_NOW

POISON = ("CREATE TEMP TRIGGER poison BEFORE INSERT ON main.messages WHEN NEW.text LIKE '%poisonword%'"
          " BEGIN SELECT RAISE(ABORT, 'this message cannot be stored'); END")


def claude_log(path: Path, sid: str, texts: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"type": "user", "uuid": f"{sid}-{i}", "sessionId": sid, "cwd": "/w/demo",
                         "timestamp": f"2026-03-01T10:00:{i:02d}Z", "message": {"role": "user", "content": text}})
             for i, text in enumerate(texts)]
    path.write_text("\n".join(lines) + "\n")
    return path


def found(index: Index, word: str) -> bool:
    return bool(index.search(word, now=FIXED_NOW, closest=False).hits)


def test_every_bad_class_costs_only_itself(tmp_path):
    tree = build(tmp_path / "logs")
    with Index(tmp_path / "i.sqlite3") as index:
        summary = index.update(tree.roots, now=FIXED_NOW)
        assert summary.files_seen == len(BAD_CLASSES) and summary.files_failing == 0
        assert [m for m in tree.markers if not found(index, m)] == []
        problems = "\n".join(summary.problems)
        for cls, line in (("truncated-line", 2), ("deep-nesting", 2)):
            assert f"{tree.files[cls]}: 1 line(s) are not valid JSON and were skipped (first at line {line})" in problems
        assert f"{tree.files['non-utf8-bytes']}:3: 1 line(s) hold bytes that are not UTF-8" in problems
        # Lone surrogates are stored as replacement characters, in every field.
        text = index.session("s-text")
        assert "cut emoji \ufffd here" in [m.text for m in index.messages(text)]
        assert index.session("s-cwd").project_path == "/w/demo\ufffd"
        assert index.session("s-branch").git_branch == "fix\ufffd"
        assert index.session("s-model").model == "m\ufffd"
        assert index.session("pi:p\ufffd1") is not None
        assert index.session("agent-a1").parent_session_id == "s-parent\ufffd"
        assert index.session("019c0000-0000-7000-8000-000000000003").parent_session_id == "p\ufffd"
        tool = [m for m in index.messages(index.session("s-tool")) if m.kind == "tool_result"]
        assert tool and "\ufffd" in tool[0].text
        # A file name that is not UTF-8 is stored with the byte written out.
        named = index.session("s-name-\ufffd")
        assert named.source_path.endswith("s-name-\\xff.jsonl")
        # And the next run finds nothing new: every file was stored as it is.
        again = index.update(tree.roots, now=FIXED_NOW)
        assert again.files_changed == 0 and again.problems == []


def test_a_pretty_printed_record_is_read_as_one_in_every_agent(tmp_path):
    tree = build(tmp_path / "logs")
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(tree.roots, now=FIXED_NOW)
        for query in ("pretty printed", "pretty codex", "pretty pi"):
            assert found(index, f'"{query}"'), query


@pytest.mark.parametrize("helper", [False, True], ids=["one process", "helper process"])
def test_a_file_that_cannot_be_stored_costs_that_file_only(tmp_path, monkeypatch, helper):
    if helper:
        monkeypatch.setattr(stream, "PARALLEL_MIN_BYTES", 0)  # start the helper for a small tree
    root = tmp_path / "logs"
    for n in range(6):
        words = [f"good{n}a", "poisonword here" if n == 3 else f"good{n}b", f"good{n}c"]
        claude_log(root / "-w-demo" / f"s{n}.jsonl", f"s{n}", words)
    roots = only_roots({"claude-code": [root]})
    with Index(tmp_path / "i.sqlite3") as index:
        index.conn.execute(POISON)
        summary = index.update(roots, now=FIXED_NOW)
        bad = root / "-w-demo" / "s3.jsonl"
        assert summary.files_failing == 1 and summary.files_new == 5
        assert any(p.startswith(f"{bad}:1: IntegrityError: this message cannot be stored") for p in summary.problems)
        assert summary.failing_note == "1 file still failing, see `threadback index --problems`"
        # Rolled back whole: none of its rows, all of everyone else's.
        assert not found(index, "good3a") and index.session("s3") is None
        assert all(found(index, f"good{n}{x}") for n in (0, 1, 2, 4, 5) for x in "abc")
        assert index.stats().messages == 15
        [failure] = index.failing_files()
        assert failure.path == str(bad) and failure.line == 1 and "cannot be stored" in failure.reason


def test_a_failing_file_is_skipped_until_it_changes_and_counted_every_time(tmp_path):
    root = tmp_path / "logs"
    bad = claude_log(root / "-w-demo" / "bad.jsonl", "bad", ["poisonword", "other words"])
    claude_log(root / "-w-demo" / "good.jsonl", "good", ["fine words"])
    roots = only_roots({"claude-code": [root]})
    with Index(tmp_path / "i.sqlite3") as index:
        index.conn.execute(POISON)
        first = index.update(roots, now=FIXED_NOW)
        assert first.files_failing == 1 and len(first.problems) == 1
        # Not retried while it stays as it is, but still counted.
        second = index.update(roots, now=FIXED_NOW)
        assert second.files_changed == 0 and second.problems == [] and second.files_failing == 1
        # Changed, it is tried again; fixed, it is stored and no longer failing.
        claude_log(bad, "bad", ["cured words", "other words"])
        third = index.update(roots, now=FIXED_NOW)
        assert third.files_failing == 0 and third.files_new == 1 and found(index, "cured")
        assert index.failing_files() == []


def test_the_same_root_spelled_two_ways_is_indexed_once(tmp_path, monkeypatch):
    root = tmp_path / "logs"
    log = claude_log(root / "-w-demo" / "s.jsonl", "s", ["pelican one", "pelican two"])
    (tmp_path / "link").symlink_to(root)
    monkeypatch.chdir(tmp_path)
    roots = only_roots({"claude-code": [Path("logs"), root, tmp_path / "link", Path("./logs/../logs")]})
    with Index(tmp_path / "i.sqlite3") as index:
        summary = index.update(roots, now=FIXED_NOW)
        assert summary.files_seen == 1 and summary.messages_added == 2
        assert index.conn.execute("SELECT path FROM files").fetchall()[0][0] == str(log)
        claude_log(log, "s", ["pelican three"])  # rewritten: shrinks, every old row goes
        index.update(roots, now=FIXED_NOW)
        assert [m.text for m in index.messages(index.session("s"))] == ["pelican three"]
        assert index.stats().messages == 1


def test_a_same_size_rewrite_with_its_mtime_put_back_is_noticed(tmp_path):
    root = tmp_path / "logs"
    log = claude_log(root / "-w-demo" / "s.jsonl", "s", ["first words", "alpha bravo", "last words"])
    before = log.stat()
    roots = only_roots({"claude-code": [root]})
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        data = log.read_bytes().replace(b"alpha bravo", b"gamma delta")
        log.write_bytes(data)
        os.utime(log, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert (log.stat().st_size, log.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
        summary = index.update(roots, now=FIXED_NOW)
        assert summary.files_reindexed == 1
        assert found(index, "gamma") and not found(index, "alpha")
        assert index.update(roots, now=FIXED_NOW).files_changed == 0


def _long_log(tmp_path: Path) -> tuple[Path, dict]:
    """A log of several KB (its head and the bytes before its end hash apart), indexed."""
    log = claude_log(tmp_path / "logs" / "-w-demo" / "s.jsonl", "s",
                     [f"line {n} of the pelican notes" for n in range(60)])
    assert log.stat().st_size > 4096
    return log, only_roots({"claude-code": [tmp_path / "logs"]})


def _message_ids(index: Index) -> list[int]:
    return [r[0] for r in index.conn.execute("SELECT id FROM messages ORDER BY id")]


def _ctime_moves(log: Path, change) -> None:
    """Run ``change`` (a chmod, a link) until the log's inode change time has moved: the
    kernel's clock for it ticks every few ms."""
    before = log.stat()
    for _ in range(50):
        change()
        after = log.stat()
        if after.st_ctime_ns != before.st_ctime_ns:
            assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
            return
        time.sleep(0.01)
    raise AssertionError("the change time never moved")


def test_a_chmod_to_the_same_mode_is_confirmed_by_the_hashes_not_read_again(tmp_path):
    log, roots = _long_log(tmp_path)
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        ids = _message_ids(index)
        _ctime_moves(log, lambda: os.chmod(log, log.stat().st_mode & 0o7777))
        summary = index.update(roots, now=FIXED_NOW)
        assert (summary.files_confirmed, summary.files_changed, summary.messages_added, summary.bytes_read) == (1, 0, 0, 0)
        assert _message_ids(index) == ids and found(index, "pelican")
        again = index.update(roots, now=FIXED_NOW)  # the new change time is kept: nothing to check
        assert (again.files_confirmed, again.files_changed) == (0, 0)


def test_a_hard_link_made_and_removed_is_confirmed_by_the_hashes_not_read_again(tmp_path):
    log, roots = _long_log(tmp_path)
    link = tmp_path / "elsewhere.jsonl"

    def link_and_unlink() -> None:
        os.link(log, link)
        link.unlink()

    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        ids = _message_ids(index)
        _ctime_moves(log, link_and_unlink)
        summary = index.update(roots, now=FIXED_NOW)
        assert (summary.files_confirmed, summary.files_changed, summary.messages_added, summary.bytes_read) == (1, 0, 0, 0)
        assert _message_ids(index) == ids


def _many_long_logs(tmp_path: Path, count: int) -> tuple[list[Path], dict]:
    logs = [claude_log(tmp_path / "logs" / "-w-demo" / f"s{n}.jsonl", f"s{n}",
                       [f"line {k} of log {n}, the heron notes" for k in range(60)]) for n in range(count)]
    return logs, only_roots({"claude-code": [tmp_path / "logs"]})


def _all_ctimes_move(logs: list[Path]) -> None:
    """A chmod to the same mode of every log, until each one's change time has moved."""
    before = {log: log.stat().st_ctime_ns for log in logs}
    for _ in range(50):
        for log in logs:
            os.chmod(log, log.stat().st_mode & 0o7777)
        if all(log.stat().st_ctime_ns != before[log] for log in logs):
            return
        time.sleep(0.01)
    raise AssertionError("the change times never moved")


def _wal_frames(db: Path) -> int:
    wal = db.with_name(db.name + "-wal")
    return max(0, wal.stat().st_size - 32) // (4096 + 24) if wal.exists() else 0


def test_the_logs_a_chmod_touched_are_confirmed_in_one_transaction(tmp_path):
    """Each confirmed log's new change time was once a commit of its own: after a chmod of
    50,000 logs the run took 11 s, 7 of them committing. In one transaction the WAL takes a
    few pages, not a few a log."""
    logs, roots = _many_long_logs(tmp_path, 40)
    db = tmp_path / "i.sqlite3"
    with Index(db) as index:
        index.update(roots, now=FIXED_NOW)
        index.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert _wal_frames(db) == 0
        _all_ctimes_move(logs)
        summary = index.update(roots, now=FIXED_NOW)
        assert (summary.files_confirmed, summary.files_changed, summary.messages_added) == (40, 0, 0)
        assert _wal_frames(db) < 20
        stored = dict(index.conn.execute("SELECT path, ctime_ns FROM files").fetchall())
        assert {str(log): log.stat().st_ctime_ns for log in logs} == stored


def test_logs_confirmed_a_batch_at_a_time_and_one_rewritten_among_them_is_read_again(tmp_path, monkeypatch):
    monkeypatch.setattr("indexer.ingest.writer.CONFIRMED_AT_ONCE", 2)
    logs, roots = _many_long_logs(tmp_path, 5)
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        rewritten = logs[2]
        before = rewritten.stat()
        rewritten.write_bytes(rewritten.read_bytes().replace(b"heron", b"egret"))
        os.utime(rewritten, ns=(before.st_atime_ns, before.st_mtime_ns))
        _all_ctimes_move(logs)
        summary = index.update(roots, now=FIXED_NOW)
        assert (summary.files_confirmed, summary.files_reindexed) == (4, 1)
        assert found(index, "egret")
        again = index.update(roots, now=FIXED_NOW)
        assert (again.files_confirmed, again.files_changed) == (0, 0)


@pytest.mark.parametrize("where", ["head", "tail"])
def test_a_long_log_rewritten_at_its_head_or_tail_with_its_mtime_put_back_is_read_again(tmp_path, where):
    log, roots = _long_log(tmp_path)
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        before = log.stat()
        old = b"line 0 of the pelican" if where == "head" else b"line 59 of the pelican"
        time.sleep(0.02)  # the change time moves
        log.write_bytes(log.read_bytes().replace(old, old.replace(b"pelican", b"penguin")))
        os.utime(log, ns=(before.st_atime_ns, before.st_mtime_ns))
        summary = index.update(roots, now=FIXED_NOW)
        assert (summary.files_confirmed, summary.files_reindexed) == (0, 1)
        assert found(index, "penguin")


def test_an_index_from_before_inode_change_times_reads_nothing_again(tmp_path):
    root = tmp_path / "logs"
    claude_log(root / "-w-demo" / "s.jsonl", "s", ["first words"])
    roots = only_roots({"claude-code": [root]})
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        index.conn.execute("UPDATE files SET ctime_ns = 0")  # as the upgrade to schema 4 leaves them
        again = index.update(roots, now=FIXED_NOW)
        assert again.files_changed == 0 and again.bytes_read == 0
        assert index.conn.execute("SELECT min(ctime_ns) FROM files").fetchone()[0] > 0


# -- hypothesis: whole runs over trees that mix good logs with bad ones --------------------------
CLASS_SETS = st.sets(st.sampled_from(BAD_CLASSES), min_size=1, max_size=6)
RUNS = settings(max_examples=12, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@RUNS
@given(kept=CLASS_SETS, noise=st.binary(max_size=400), position=st.integers(0, 3))
def test_any_mix_of_bad_files_and_random_bytes_leaves_every_good_message_searchable(tmp_path_factory, kept, noise, position):
    base = tmp_path_factory.mktemp("mix")
    tree = build(base / "logs")
    for cls in set(BAD_CLASSES) - kept:  # this tree holds only the bad classes drawn
        tree.files[cls].unlink()
    markers = [m for m in tree.markers if any(m.encode() in p.read_bytes() for p in tree.files.values() if p.exists())]
    good = claude_log(base / "logs" / "claude" / "-w-good" / "g.jsonl", "g", ["goodfirst words", "goodlast words"])
    lines = good.read_bytes().split(b"\n")
    lines.insert(min(position, len(lines) - 1), noise.replace(b"\n", b" "))
    good.write_bytes(b"\n".join(lines))
    with Index(base / "i.sqlite3") as index:
        summary = index.update(tree.roots, now=FIXED_NOW)
        assert summary.files_failing == 0
        missing = [m for m in [*markers, "goodfirst", "goodlast"] if not found(index, m)]
        assert missing == []
    shutil.rmtree(base)


def test_the_command_line_counts_and_lists_failing_files(tmp_path):
    root = tmp_path / "logs"
    bad = claude_log(root / "-w-demo" / "bad.jsonl", "bad", ["poisonword"])
    claude_log(root / "-w-demo" / "good.jsonl", "good", ["fine words"])
    db = tmp_path / "i.sqlite3"
    with Index(db) as index:
        index.conn.execute(POISON)
        index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)
    results = threadback_many([["index", "--db", str(db), "--claude-dir", str(root)],
                               ["index", "--problems", "--db", str(db)],
                               ["index", "--problems", "--json", "--db", str(db)]])
    (code, out, err), (listed_code, listed, _), (_, as_json, _) = results
    assert code == 0 and "1 file still failing, see `threadback index --problems`" in err
    assert listed_code == 0 and f"{bad}:1: IntegrityError: this message cannot be stored" in listed
    assert json.loads(as_json)[0]["path"] == str(bad)

"""Incremental indexing: no-change runs, appends, half-written lines, rewrites, deletions,
locking, and every kind of bad input a real log tree holds."""

from __future__ import annotations

import builtins
import itertools
import json
import os
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from indexer import Index, IndexBusyError, IndexCorruptError, only_roots
from indexer.ingest import IndexLock
from indexer.store.packing import unpack
from indexer.store.side_file import cjk_bigrams
from indexer.text.fold import index_form

from conftest import FIXED_NOW


def claude_line(uuid: str, text: str, role: str = "user", ts: str = "2026-03-01T10:00:00Z") -> str:
    if role == "user":
        message = {"role": "user", "content": text}
    else:
        message = {"id": f"msg_{uuid}", "role": "assistant", "model": "claude-x", "content": [{"type": "text", "text": text}]}
    return json.dumps({"type": role, "uuid": uuid, "sessionId": "sess1", "cwd": "/w/demo", "timestamp": ts, "message": message},
                      ensure_ascii=False)


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "projects"
    log = root / "-w-demo" / "sess1.jsonl"
    log.parent.mkdir(parents=True)
    return root, log, Index(tmp_path / "index.sqlite3")


def run(index: Index, root: Path):
    return index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)


def texts(index: Index) -> list[str]:
    return [m.text for m in index.messages(index.session("sess1"))]


def test_no_change_run_only_stats(tree):
    root, log, index = tree
    log.write_text(claude_line("u1", "first prompt about pelicans") + "\n")
    assert run(index, root).messages_added == 1
    again = run(index, root)
    assert again.bytes_read == 0 and again.files_changed == 0 and again.messages_added == 0


def test_append_reads_from_offset(tree):
    root, log, index = tree
    log.write_text(claude_line("u1", "first prompt about pelicans") + "\n")
    run(index, root)
    size = log.stat().st_size
    with log.open("a") as fh:
        fh.write(claude_line("a1", "an answer about herons", role="assistant") + "\n")
    summary = run(index, root)
    assert summary.files_appended == 1 and summary.files_reindexed == 0
    assert summary.bytes_read == log.stat().st_size - size
    assert texts(index) == ["first prompt about pelicans", "an answer about herons"]
    assert index.search("herons").hits[0].message.ordinal == 1


def test_half_written_line_waits_for_the_rest(tree):
    root, log, index = tree
    full = claude_line("u2", "second prompt about cormorants")
    log.write_text(claude_line("u1", "first prompt about pelicans") + "\n" + full[:40])
    os.utime(log, (FIXED_NOW, FIXED_NOW))  # being written right now
    summary = run(index, root)
    assert summary.problems == []
    assert texts(index) == ["first prompt about pelicans"]
    with log.open("a") as fh:
        fh.write(full[40:] + "\n")
    run(index, root)
    assert texts(index) == ["first prompt about pelicans", "second prompt about cormorants"]


def test_rewritten_in_place_is_reindexed(tree):
    root, log, index = tree
    log.write_text(claude_line("u1", "original wording about pelicans") + "\n" + claude_line("u2", "more") + "\n")
    run(index, root)
    # Same size or larger, different head: a rewrite (e.g. Pi migrating a file to v3).
    log.write_text(claude_line("u1", "rewritten wording about penguins") + "\n" + claude_line("u2", "more") + "\n"
                   + claude_line("u3", "and a third message") + "\n")
    summary = run(index, root)
    assert summary.files_reindexed == 1
    assert texts(index) == ["rewritten wording about penguins", "more", "and a third message"]
    assert not index.search("pelicans").hits
    assert index.search("penguins").hits


def test_shrunk_file_is_reindexed(tree):
    root, log, index = tree
    log.write_text(claude_line("u1", "alpha pelicans") + "\n" + claude_line("u2", "beta herons") + "\n")
    run(index, root)
    log.write_text(claude_line("u9", "gamma storks") + "\n")
    summary = run(index, root)
    assert summary.files_reindexed == 1
    assert texts(index) == ["gamma storks"]
    assert not index.search("herons").hits


def test_reindex_removes_rows_by_rowid_without_scanning_fts(tree):
    root, log, index = tree
    log.write_text(claude_line("u1", "gamma storks 設定") + "\n")
    run(index, root)
    statements: list[str] = []
    index.conn.set_trace_callback(statements.append)
    log.write_text(claude_line("u1", "delta ibises") + "\n")
    run(index, root)
    index.conn.set_trace_callback(None)
    top_level = [s for s in statements if not s.startswith("--")]  # "--" lines are FTS5 internals
    deletes = [s for s in top_level if "fts" in s.lower() and "delete" in s.lower()]
    assert deletes and all("VALUES ('delete'" in s for s in deletes)
    assert not index.search("設定").hits and not index.search("storks").hits


def test_deleted_file_keeps_its_sessions_searchable(tree):
    root, log, index = tree
    log.write_text(claude_line("u1", "remember the pelican migration") + "\n")
    run(index, root)
    log.unlink()
    summary = run(index, root)
    assert summary.files_missing == 1
    hits = index.search("pelican migration").hits
    assert hits and hits[0].session.source_missing


def test_second_writer_gets_a_clear_message(tree):
    root, log, index = tree
    log.write_text(claude_line("u1", "x y z") + "\n")
    with IndexLock(index.path):
        with pytest.raises(IndexBusyError, match="another Threadback index run"):
            run(index, root)


def test_search_reads_while_an_index_run_holds_the_writer(tree):
    root, log, index = tree
    log.write_text(claude_line("u1", "pelicans before the run") + "\n")
    run(index, root)
    writer = sqlite3.connect(index.path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE meta SET value = value")
    try:
        reader = Index(index.path)
        assert reader.search("pelicans").hits
        reader.close()
    finally:
        writer.execute("ROLLBACK")
        writer.close()


# -- bad input -------------------------------------------------------------------------------
def test_bad_lines_are_reported_once_and_the_rest_indexed(tree):
    root, log, index = tree
    good1 = claude_line("u1", "good first line about pelicans")
    good2 = claude_line("u2", "good last line about herons")
    two_on_one = claude_line("u3", "glued one") + claude_line("u4", "glued two")
    big = claude_line("u5", "big " + "word " * 220_000)  # a 1 MB line
    log.write_bytes(
        (good1 + "\n").encode()
        + b'{"type": "user", "truncated\n'
        + b"not json at all\n"
        + (two_on_one + "\n").encode()
        + b'{"type":"user","uuid":"u6","sessionId":"sess1","message":{"role":"user","content":"bad bytes \xff\xfe here"}}\n'
        + (big + "\n").encode()
        + b'{"type":"brand-new-type","whatever":[1,2,3]}\n'
        + (good2 + "\n").encode()
    )
    summary = run(index, root)
    assert len(summary.problems) == 1
    assert str(log) in summary.problems[0] and "2 line(s)" in summary.problems[0] and "line 2" in summary.problems[0]
    found = texts(index)
    assert found[0] == "good first line about pelicans" and found[-1] == "good last line about herons"
    assert "glued one" in found and "glued two" in found
    assert any(t.startswith("bad bytes") and "\ufffd" in t for t in found)
    assert any(t.startswith("big word") and len(t) > 100_000 for t in found)


@pytest.mark.parametrize("layout", ["indented", "first key on line 1"])
def test_empty_and_pretty_printed_files(tmp_path, layout):
    root = tmp_path / "sessions"
    root.mkdir()
    (root / "rollout-2025-05-01T10-00-00-ffffffff-0000-4000-8000-000000000006.jsonl").write_text("")
    session = {"id": "ffffffff-0000-4000-8000-000000000007", "timestamp": "2025-05-01T10:00:00Z"}
    items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "pretty printed prompt"}]}]
    if layout == "indented":
        text = json.dumps({"session": session, "items": items}, indent=2)
    else:  # saved by hand: line 1 opens the object and holds its first key
        text = '{"session": ' + json.dumps(session) + ',\n "items": ' + json.dumps(items, indent=1) + "\n}\n"
    (root / "rollout-2025-05-01T11-00-00-ffffffff-0000-4000-8000-000000000007.jsonl").write_text(text)
    index = Index(tmp_path / "i.sqlite3")
    summary = index.update(only_roots({"codex": [root]}), now=FIXED_NOW)
    assert summary.files_seen == 2 and summary.problems == []
    assert index.search("pretty printed").hits


def test_unreadable_and_vanishing_files_do_not_stop_the_run(tree, monkeypatch):
    root, log, index = tree
    log.write_text(claude_line("u1", "readable pelicans") + "\n")
    locked = log.with_name("locked.jsonl")
    locked.write_text(claude_line("x1", "secret") + "\n")
    gone = log.with_name("gone.jsonl")
    gone.write_text(claude_line("g1", "vanishing") + "\n")
    real_open = builtins.open

    def fake_open(path, *args, **kwargs):
        if str(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        if str(path) == str(gone):
            raise FileNotFoundError(2, "No such file", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    summary = run(index, root)
    monkeypatch.undo()
    assert any("locked.jsonl: cannot read" in p for p in summary.problems)
    assert any("gone.jsonl: vanished" in p for p in summary.problems)
    assert index.search("readable pelicans").hits


def test_corrupt_index_gets_a_clear_message(tmp_path):
    path = tmp_path / "index.sqlite3"
    path.write_bytes(b"this is not a database, just garbage bytes" * 100)
    with pytest.raises(IndexCorruptError, match="--rebuild"):
        Index(path).conn  # noqa: B018


def test_last_line_without_newline_is_taken_once_the_writer_is_long_gone(tree):
    root, log, index = tree
    log.write_text(claude_line("u1", "first prompt about pelicans") + "\n" + claude_line("u2", "final words about herons"))
    os.utime(log, (FIXED_NOW - 3600, FIXED_NOW - 3600))  # untouched for an hour
    run(index, root)
    assert texts(index) == ["first prompt about pelicans", "final words about herons"]
    assert run(index, root).files_changed == 0


def test_a_helper_process_prepares_files_exactly_as_inline(tmp_path, monkeypatch, private_corpus):
    """Big runs parse in a helper process, also from a thread as the app runs them, and the
    helper indexes some files' text in the side trigram shard, and the main process prepares
    files itself when it would wait for the helper: searches must come out the
    same, also after the side file is lost and refilled. (Its own copy of the corpus: a log
    read again by the last run takes new message ids, which changes which 500 of the many
    messages holding "the" come first.)"""

    from conftest import corpus_roots as roots_of

    def corpus_roots():
        return roots_of(private_corpus)
    from indexer.ingest import helper
    from indexer.ingest import stream as ingest
    from indexer.ingest.helper import QUEUED_AT_HELPER

    used = []
    real_helper = helper.HelperProcess  # the stream loads it when a run starts one

    def counting_helper(*args, **kwargs):
        used.append(real_helper(*args, **kwargs))
        return used[-1]

    def contents(index: Index) -> list[tuple]:
        """Unpacked: each index trains its own packing dictionary, so the stored bytes differ."""
        rows = index.conn.execute(
            "SELECT s.session_id, m.ordinal, m.role, m.kind, m.text, m.detail, m.indexed != 0 FROM messages m"
            " JOIN sessions s ON s.id = m.session_rowid ORDER BY s.session_id, m.ordinal"
        ).fetchall()
        return [(*r[:4], unpack(r[4], index.conn), unpack(r[5], index.conn), r[6]) for r in rows]

    inline = Index(tmp_path / "inline.sqlite3")
    inline.update(corpus_roots(), now=FIXED_NOW)
    monkeypatch.setattr(ingest, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(helper, "HelperProcess", counting_helper)
    # Which files the helper takes depends on timing: make it every other one, so both
    # trigram shards hold texts whatever the machine's speed.
    turns = itertools.cycle([True, False])
    monkeypatch.setattr(real_helper, "_take_text", lambda self: next(turns))
    # And the main process prepares files itself whenever it would wait for the helper: make
    # that every other time it asks (it gives the helper only their side-file entries).
    idle = itertools.cycle([True, False])
    monkeypatch.setattr(real_helper, "_nothing_arrived", lambda self: next(idle))
    helped = Index(tmp_path / "helped.sqlite3")
    with ThreadPoolExecutor(1) as thread:
        summary = thread.submit(helped.update, corpus_roots(), now=FIXED_NOW).result()
    assert used, "the helper process was not used"
    assert 0 < used[0].prepared_here < summary.files_new, "both processes should prepare files"
    assert summary.messages_added == inline.stats().messages
    assert [tuple(r) for r in contents(helped)] == [tuple(r) for r in contents(inline)]
    shards = dict(helped.conn.execute("SELECT indexed, count(*) FROM messages WHERE indexed != 0 GROUP BY 1").fetchall())
    assert shards.get(1) and shards.get(2), f"both trigram shards should hold texts: {shards}"

    def answers(index: Index) -> list[list[tuple]]:
        return [[(h.session.session_id, h.message.text) for h in index.search(q, limit=500).hits]
                for q in ("更新", "the", "README", "git status", "-the readme")]

    expected = answers(inline)
    assert all(expected[:4])
    assert answers(helped) == expected

    def side_rows(index: Index, table: str, term: str) -> list[tuple]:
        """What the side file's bigram or word table finds for ``term``, as (session, ordinal)."""
        return sorted(tuple(r) for r in index.conn.execute(
            f"SELECT s.session_id, m.ordinal FROM side.{table} t JOIN messages m ON m.id = t.rowid"
            f" JOIN sessions s ON s.id = m.session_rowid WHERE t.{table} MATCH ?", (f'"{term}"',)).fetchall())

    cjk = [r[0] for r in inline.conn.execute("SELECT text FROM messages WHERE has_cjk = 1 AND indexed = 1")]
    bigrams = sorted({gram for t in cjk for gram in cjk_bigrams(index_form(t) or t).split()})[:40]
    vocabulary = [r[0] for r in inline.conn.execute("SELECT term FROM side.vocab ORDER BY id")]
    assert len(bigrams) > 10 and len(vocabulary) > 300
    lookups = [("cjk2", term) for term in bigrams] + [("words", term) for term in vocabulary[::len(vocabulary) // 40]]
    expected_side = [side_rows(inline, table, term) for table, term in lookups]
    assert all(expected_side)
    assert [side_rows(helped, table, term) for table, term in lookups] == expected_side

    # Every file prepared by the main process but those sent before it first asks, the helper
    # writing only their side entries.
    monkeypatch.setattr(real_helper, "_nothing_arrived", lambda self: True)
    all_here = Index(tmp_path / "all_here.sqlite3")
    summary = all_here.update(corpus_roots(), now=FIXED_NOW)
    assert used[-1].prepared_here == summary.files_new - QUEUED_AT_HELPER
    assert [tuple(r) for r in contents(all_here)] == [tuple(r) for r in contents(inline)]
    assert answers(all_here) == expected
    assert [side_rows(all_here, table, term) for table, term in lookups] == expected_side
    all_here.close()

    path = helped.path
    helped.close()
    from indexer.store import side_file
    for f in side_file.side_files(path):
        f.unlink(missing_ok=True)
    healed = Index(path)
    healed.update(corpus_roots(), now=FIXED_NOW)
    assert answers(healed) == expected


def test_a_helper_that_dies_or_fails_is_reported_not_waited_for(tmp_path):
    from indexer.ingest.helper import HelperError, HelperProcess

    helper = HelperProcess(tmp_path / "index.sqlite3", 1)
    with pytest.raises(HelperError, match="unknown request"):
        helper.request("no-such-request")
    helper._proc.kill()
    with pytest.raises(HelperError, match="stopped answering"):
        helper.commit()
    helper.close()


def test_the_kept_message_count_follows_appends_rewrites_and_duplicates(tree):
    root, log, index = tree

    def counted() -> int:
        return index.conn.execute("SELECT count(*) FROM messages").fetchone()[0]

    log.write_text(claude_line("u1", "alpha herons") + "\n" + claude_line("u2", "beta herons") + "\n")
    run(index, root)
    assert index.stats().messages == counted() == 2
    with log.open("a") as fh:
        fh.write(claude_line("u3", "gamma herons") + "\n")
    run(index, root)
    assert index.stats().messages == counted() == 3
    log.write_text(claude_line("u9", "only one left") + "\n")  # rewritten: three go, one comes
    run(index, root)
    assert index.stats().messages == counted() == 1
    (log.parent / "copy.jsonl").write_text(log.read_text())  # a resume copy: in its transcript, not searched again
    run(index, root)
    assert index.stats().messages == counted() == 2
    assert index.conn.execute("SELECT count(*) FROM messages WHERE indexed != 0").fetchone()[0] == 1


def test_the_helper_takes_more_text_while_the_writer_is_the_slower_side():
    from indexer.ingest.helper import SHARE_MAX, TextSharing

    sharing = TextSharing(now=0.0, share=0.25)
    assert [sharing.take_text() for _ in range(8)].count(True) == 2  # a quarter, spread evenly
    for second in range(1, 40):  # the writer never waits: it is the bottleneck
        sharing.writer_waited(0.0, float(second))
    assert sharing.share == SHARE_MAX
    for second in range(40, 80):  # now it waits half of each second: the helper is
        sharing.writer_waited(0.5, float(second))
    assert sharing.share == 0.0
    assert not any(sharing.take_text() for _ in range(10))
    sharing.writer_waited(0.05, 80.0)  # a little waiting: leave the share as it is
    assert sharing.share == 0.0


def test_a_no_change_run_reads_what_it_compares_from_a_covering_index(tree):
    root, log, index = tree
    log.write_text(claude_line("u1", "pelicans") + "\n")
    run(index, root)
    statements: list[str] = []
    index.conn.set_trace_callback(statements.append)
    assert run(index, root).files_changed == 0
    index.conn.set_trace_callback(None)
    [known] = [s for s in statements if s.startswith("SELECT path, id, size, mtime_ns, ctime_ns, inode, missing FROM files")]
    plan = " ".join(r[3] for r in index.conn.execute("EXPLAIN QUERY PLAN " + known))
    assert "COVERING INDEX files_by_stat" in plan  # 50,000 narrow index rows, not the wide table


def _tool_call_line(uuid: str, tool_id: str, name: str) -> str:
    message = {"id": f"msg_{uuid}", "role": "assistant", "model": "claude-x",
               "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": {"command": "ls"}}]}
    return json.dumps({"type": "assistant", "uuid": uuid, "sessionId": "sess1", "cwd": "/w/demo",
                       "timestamp": "2026-03-01T10:00:00Z", "message": message})


def _tool_result_line(uuid: str, tool_id: str, output: str) -> str:
    message = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output}]}
    return json.dumps({"type": "user", "uuid": uuid, "sessionId": "sess1", "cwd": "/w/demo",
                       "timestamp": "2026-03-01T10:00:01Z", "message": message})


def test_file_state_keeps_only_calls_still_waiting_for_their_result(tree):
    """An answered call's name is dropped from the stored state; a call answered in a later
    append still names its output."""
    root, log, index = tree
    log.write_text("\n".join([_tool_call_line("a1", "t1", "Bash"), _tool_result_line("r1", "t1", "one"),
                              _tool_call_line("a2", "t2", "Grep")]) + "\n")
    run(index, root)
    (state,) = index.conn.execute("SELECT parser_state FROM files").fetchone()
    assert json.loads(state)["tool_names"] == {"t2": "Grep"}
    with log.open("a") as fh:
        fh.write(_tool_result_line("r2", "t2", "two") + "\n")
    run(index, root)
    outputs = {m.text: m.tool_name for m in index.messages(index.session("sess1")) if m.kind == "tool_result"}
    assert outputs == {"one": "Bash", "two": "Grep"}
    (state,) = index.conn.execute("SELECT parser_state FROM files").fetchone()
    assert json.loads(state)["tool_names"] == {}


def test_a_new_session_counted_on_insert_agrees_with_its_messages(tree):
    """A new session whose rows all go in is counted as it is inserted; one that met a copy of a
    message it holds, another file of its own, or an append is counted from its messages. Every
    way, the session row says what its messages say."""
    root, log, index = tree

    def other(name: str, lines: list[str]) -> None:
        (log.parent / f"{name}.jsonl").write_text("\n".join(line.replace('"sess1"', f'"{name}"') for line in lines) + "\n")

    log.write_text("\n".join([claude_line("u1", "first", ts="2026-03-01T10:00:00Z"),
                              claude_line("u2", "second", "assistant", ts="2026-03-01T10:05:00Z")]) + "\n")
    other("twice", [claude_line("t1", "said once", ts="2026-03-02T09:00:00Z"),
                    claude_line("t1", "said once", ts="2026-03-02T09:00:00Z"),  # the same line again: one message
                    claude_line("t2", "then this", ts="2026-03-02T09:30:00Z")])
    other("resumed", [claude_line("u1", "first", ts="2026-03-01T10:00:00Z"),  # sess1's, copied
                      claude_line("r1", "and more", ts="2026-03-03T08:00:00Z")])
    other("untimed", [json.dumps({"type": "user", "uuid": "n1", "sessionId": "untimed", "cwd": "/w/demo",
                                  "message": {"role": "user", "content": "no time given"}})])
    run(index, root)
    with log.open("a") as fh:
        fh.write(claude_line("u3", "third", ts="2026-03-01T11:00:00Z") + "\n")
    run(index, root)
    rows = index.conn.execute(
        "SELECT s.session_id, s.message_count, s.start_ts, s.end_ts, count(m.id), min(m.ts), max(m.ts)"
        " FROM sessions s LEFT JOIN messages m ON m.session_rowid = s.id GROUP BY s.id").fetchall()
    assert len(rows) == 4
    for session_id, kept, start, end, counted, first, last in rows:
        assert (kept, start, end) == (counted, first, last), session_id
    assert {r[0]: r[1] for r in rows} == {"sess1": 3, "twice": 2, "resumed": 2, "untimed": 1}

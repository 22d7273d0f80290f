"""Segments of the full-text tables are merged after a small index run, a slice at a time, and
to one by ``index --compact``; what a search finds stays the same."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from indexer import Index, only_roots
from indexer.ingest import run
from indexer.store import fts_merge
from indexer.store.fts_merge import fts5_tables, index_tables, merge_segments, segment_count, table_structure

from cli_process import threadback
from conftest import CORPUS, FIXED_NOW, corpus_roots

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda".split()


def fragmented_table(path: Path, batches: int = 40) -> sqlite3.Connection:
    """A trigram table written one row per transaction with automatic merging off: a segment
    a row (up to FTS5's crisis merge at 16 on one level), as a cold build's batches leave them."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (text, tokenize='trigram')")
    conn.execute("INSERT INTO t(t, rank) VALUES ('automerge', 0)")
    rng = random.Random(18)
    for i in range(batches):  # a few pages a segment: words, and numbers that make many trigrams
        text = " ".join(rng.choice(WORDS) if k % 2 else str(rng.randrange(10**6)) for k in range(600))
        conn.execute("INSERT INTO t(rowid, text) VALUES (?, ?)", (i + 1, text))
    return conn


def matches(conn: sqlite3.Connection, table: str = "t") -> list[list[int]]:
    return [[r[0] for r in conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid", (w,))]
            for w in ("gamma", "eta", '"lambda alpha"', "psilo")]


def test_merging_joins_segments_and_keeps_every_match(tmp_path):
    conn = fragmented_table(tmp_path / "t.sqlite3")
    found = matches(conn)
    segments = segment_count(conn, "main.t")
    assert segments >= 8
    assert merge_segments(conn, ["main.t"], seconds=0) is False  # no time: nothing done
    assert segment_count(conn, "main.t") == segments
    assert merge_segments(conn, ["main.t"], seconds=None) is True
    assert segment_count(conn, "main.t") <= 3
    assert matches(conn) == found
    assert merge_segments(conn, ["main.t"], seconds=None, optimize=True) is True
    assert segment_count(conn, "main.t") == 1
    assert matches(conn) == found
    conn.execute("INSERT INTO t(t) VALUES ('integrity-check')")  # raises if the merge damaged it


def test_a_merge_asked_for_enough_segments_stops_there(tmp_path, monkeypatch):
    """A build merges its tables down to ``MERGED_SEGMENTS``, not on while time is left."""
    monkeypatch.setattr(fts_merge, "MERGE_PAGES", 4)  # small steps: one of 500 pages joins them all here
    conn = fragmented_table(tmp_path / "t.sqlite3")
    found = matches(conn)
    assert segment_count(conn, "main.t") >= 8
    assert merge_segments(conn, ["main.t"], seconds=None, enough=5) is True
    assert 3 < segment_count(conn, "main.t") <= 5
    assert matches(conn) == found


def test_a_tables_size_is_read_from_its_structure_record(tmp_path):
    """Leaf pages summed over the segments the structure record lists: every ``%_data`` row
    but the structure and averages records, where no doclist is long enough for an index
    page of its own; the same after merging, and more for a bigger table."""
    conn = fragmented_table(tmp_path / "t.sqlite3")
    conn.execute("CREATE VIRTUAL TABLE small USING fts5 (text, tokenize='trigram')")
    conn.execute("INSERT INTO small(rowid, text) VALUES (1, 'a few words')")

    def data_rows(table: str) -> int:
        return conn.execute(f"SELECT count(*) FROM {table}_data WHERE id NOT IN (1, 10)").fetchone()[0]

    assert table_structure(conn, "main.t")[1] == data_rows("t") > segment_count(conn, "main.t") >= 8
    merge_segments(conn, ["main.t"], seconds=None)
    assert table_structure(conn, "main.t")[1] == data_rows("t")
    assert 0 < table_structure(conn, "main.small")[1] == data_rows("small") < data_rows("t")


def test_the_smallest_crowded_table_is_merged_first(tmp_path, monkeypatch):
    """The trigram table takes most of a build's merging: the small tables go first, so a
    budget that runs out in it has merged them."""
    db, logs = tmp_path / "index.sqlite3", tmp_path / "logs"
    monkeypatch.setattr(run, "MERGE_SECONDS", 0.0)
    _grow_in_runs(db, logs, runs=5)
    with Index(db) as index:
        crowded = run.crowded_tables(index.conn)
        sizes = [table_structure(index.conn, t)[1] for t in crowded]
    assert len(crowded) >= 3 and "main.fts" in crowded and sizes == sorted(sizes)
    assert crowded[-1] == "main.fts"  # the corpus's trigram table is its biggest


def test_a_merge_stopped_midway_goes_on_next_time(tmp_path, monkeypatch):
    monkeypatch.setattr(fts_merge, "MERGE_PAGES", 2)  # steps small enough to stop between
    conn = fragmented_table(tmp_path / "t.sqlite3")
    found = matches(conn)
    segments = segment_count(conn, "main.t")
    checks = iter([False, False, True])  # two steps, then told to stop
    assert merge_segments(conn, ["main.t"], seconds=None, should_stop=lambda: next(checks)) is False
    assert matches(conn) == found  # mid-merge, every match is still found
    conn.execute("INSERT INTO t(t) VALUES ('integrity-check')")
    assert merge_segments(conn, ["main.t"], seconds=None) is True
    assert segment_count(conn, "main.t") <= 3 < segments
    assert matches(conn) == found


def _grow_in_runs(db: Path, logs: Path, runs: int) -> None:
    """Index the corpus into ``db`` in ``runs`` runs, a few more log files each time, with
    FTS5's own merging off in every table, so each run leaves segments behind. Its crisis merge
    too: on a loaded machine the side writer commits on its timer more often, and 16 segments
    on one level would be merged into one whatever ``automerge`` says."""
    files = sorted(p for p in CORPUS.rglob("*.jsonl"))
    index = Index(db)
    index.stats()  # creates both files
    for table in index_tables(index.conn):
        schema, name = table.split(".")
        index.conn.execute(f"INSERT INTO {schema}.{name}({name}, rank) VALUES ('automerge', 0)")
        index.conn.execute(f"INSERT INTO {schema}.{name}({name}, rank) VALUES ('crisismerge', 1000)")
    for n in range(1, runs + 1):
        for path in files[: len(files) * n // runs]:
            target = logs / path.relative_to(CORPUS)
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, target)
        index.update(corpus_roots(logs), now=FIXED_NOW, archive=False)
    index.close()


def _segments(db: Path) -> dict[str, int]:
    index = Index(db)
    try:
        return {t: segment_count(index.conn, t) for t in index_tables(index.conn)}
    finally:
        index.close()


def _hits(db: Path) -> list[str]:
    return [threadback("search", q, "--json", "-n", "50", "--db", str(db)).stdout
            for q in ("the", "error", "test", "資料")]


def test_a_small_run_merges_what_earlier_runs_left(tmp_path, monkeypatch):
    db = tmp_path / "index.sqlite3"
    monkeypatch.setattr(run, "MERGE_SECONDS", 0.0)  # the runs that grow it merge nothing
    _grow_in_runs(db, tmp_path / "logs", runs=6)
    before = _segments(db)
    assert before["main.fts"] >= 6 and before["side.words"] >= 6
    hits = _hits(db)
    index = Index(db)
    quiet = index.update(corpus_roots(tmp_path / "logs"), now=FIXED_NOW, archive=False)  # nothing new
    assert quiet.segments_left is True and _segments(db) == before  # found nothing to do: merged nothing
    monkeypatch.setattr(run, "MERGE_SECONDS", 60.0)  # time enough to finish here, on a loaded machine too
    monkeypatch.setattr(run, "MERGE_SECONDS_PER_MB", 1e6)
    monkeypatch.setattr(run, "MERGE_AFTER_BYTES", 0)
    _append_a_line(next((tmp_path / "logs").rglob("*.jsonl")))
    summary = index.update(corpus_roots(tmp_path / "logs"), now=FIXED_NOW, archive=False)  # one line new
    index.close()
    assert summary.files_changed == 1
    assert summary.segments_left is False  # finished: the app has nothing to merge after it
    after = _segments(db)
    assert after["main.fts"] <= 3 and after["side.words"] <= 3 and all(after[t] <= before[t] for t in after)
    assert sum(after.values()) < sum(before.values())
    assert _hits(db)[1:] == hits[1:]  # "the" finds the appended line too


def test_runs_that_wrote_merge_in_proportion_to_what_they_read(tmp_path, monkeypatch):
    """Small appends add up until they earn a merge; then about one step, not the whole budget."""
    db, logs = tmp_path / "index.sqlite3", tmp_path / "logs"
    monkeypatch.setattr(run, "MERGE_SECONDS", 0.0)
    _grow_in_runs(db, logs, runs=6)
    monkeypatch.setattr(run, "MERGE_SECONDS", 60.0)
    monkeypatch.setattr(fts_merge, "MERGE_PAGES", 1)  # steps far too small to finish in one
    steps: list[str] = []
    real = run.merge_segments

    def counted(conn, tables, *, seconds, should_stop=None):
        steps.append(seconds)
        return real(conn, tables, seconds=seconds, should_stop=should_stop)

    monkeypatch.setattr(run, "merge_segments", counted)
    monkeypatch.setattr(run, "MERGE_AFTER_BYTES", 100)  # two appended lines' worth
    log = next(logs.rglob("*.jsonl"))
    _append_a_line(log)
    with Index(db) as index:
        small = index.update(corpus_roots(logs), now=FIXED_NOW, archive=False)
    assert small.files_changed == 1 and 0 < small.bytes_read < 100
    assert steps == []  # one line read: not enough to earn a merge, counted towards the next
    _append_a_line(log)
    with Index(db) as index:
        summary = index.update(corpus_roots(logs), now=FIXED_NOW, archive=False)
    assert summary.files_changed == 1 and summary.segments_left is True
    assert steps == [run.MERGE_STEP_SECONDS]  # the least a merge costs: a few bytes read in all
    with Index(db) as index:
        quiet = index.update(corpus_roots(logs), now=FIXED_NOW, archive=False)
    assert quiet.files_changed == 0 and quiet.segments_left is True
    assert len(steps) == 1  # a run that found nothing to do merges nothing


def _append_a_line(log: Path) -> None:
    with log.open("a", encoding="utf-8") as fh:
        fh.write('{"type": "summary", "summary": "websocket retries", "leafUuid": "x"}\n')


def test_a_live_update_of_named_files_merges_nothing(tmp_path, monkeypatch):
    """The app's live updates (``only``: the files that changed) show new messages at once:
    merging waits for a full run."""
    db, logs = tmp_path / "index.sqlite3", tmp_path / "logs"
    monkeypatch.setattr(run, "MERGE_SECONDS", 0.0)
    _grow_in_runs(db, logs, runs=4)
    before = _segments(db)
    monkeypatch.setattr(run, "MERGE_SECONDS", 5.0)
    one = next(logs.rglob("*.jsonl"))
    with one.open("a", encoding="utf-8") as log:
        log.write('{"type": "summary", "summary": "websocket retries", "leafUuid": "x"}\n')
    Index(db).update(corpus_roots(logs), now=FIXED_NOW, archive=False, only=[str(one)])
    assert _segments(db)["main.fts"] >= before["main.fts"]


def test_a_big_run_merges_for_a_share_of_its_own_time(tmp_path, monkeypatch):
    db = tmp_path / "index.sqlite3"
    monkeypatch.setattr(run, "BULK_BYTES", 1)  # every run counts as a build
    monkeypatch.setattr(run, "MERGE_SECONDS", 0.0)  # a small run's slice would merge too
    monkeypatch.setattr(run, "BULK_MERGE_SHARE", 0.0)
    _grow_in_runs(db, tmp_path / "logs", runs=4)
    before, hits = _segments(db), _hits(db)
    assert before["main.fts"] >= 4
    monkeypatch.setattr(run, "BULK_MERGE_SHARE", 1000.0)  # time enough to finish, on a loaded machine too
    asked: list[int] = []

    def merge_and_note(*args, **kwargs):  # the real merge, noting where it was asked to stop
        asked.append(kwargs.get("enough", 0))
        return merge_segments(*args, **kwargs)

    monkeypatch.setattr(run, "merge_segments", merge_and_note)
    one = next((tmp_path / "logs").rglob("*.jsonl"))
    with one.open("a", encoding="utf-8") as log:
        log.write('{"type": "summary", "summary": "websocket retries", "leafUuid": "x"}\n')
    summary = Index(db).update(corpus_roots(tmp_path / "logs"), now=FIXED_NOW, archive=False)
    assert summary.files_changed == 1 and summary.segments_left is False
    assert max(_segments(db).values()) <= run.MERGED_SEGMENTS < before["main.fts"]
    # Down to what a merged table keeps, no further: the rest is the later runs' and the app's.
    assert asked == [run.MERGED_SEGMENTS]
    assert _hits(db) == hits


def test_compact_leaves_one_segment_a_table(tmp_path, monkeypatch):
    db = tmp_path / "index.sqlite3"
    monkeypatch.setattr(run, "MERGE_SECONDS", 0.0)
    _grow_in_runs(db, tmp_path / "logs", runs=4)
    hits = _hits(db)
    proc = threadback("index", "--compact", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    for path in (db, Path(str(db) + ".side")):
        conn = sqlite3.connect(path)
        counts = {t: segment_count(conn, t) for t in fts5_tables(conn)}
        conn.close()
        assert counts and set(counts.values()) <= {0, 1}, counts
    assert _hits(db) == hits


def test_every_full_text_table_of_an_index_is_merged(tmp_path):
    """The tables merged are found in the files: one added to either file is merged too."""
    index = Index(tmp_path / "index.sqlite3")
    try:
        index.stats()  # creates both files
        assert sorted(index_tables(index.conn)) == ["main.fts", "side.cjk2", "side.fts_side", "side.vocab_tri", "side.words"]
    finally:
        index.close()


def test_a_merge_that_fails_costs_the_run_nothing(tmp_path, monkeypatch):
    """A full disk or a busy file during the merge: the run's messages are stored and it ends
    as it would have; the next run merges."""
    def full(*_args, **_kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(run, "merge_segments", full)
    index = Index(tmp_path / "index.sqlite3")
    try:
        summary = index.update(corpus_roots(), now=FIXED_NOW, archive=False)
        assert summary.messages_added > 0 and not summary.problems
        assert index.search("the", limit=5).hits
    finally:
        index.close()


async def test_the_open_app_merges_what_a_build_left(tmp_path, monkeypatch):
    """A build's runs merge nothing (``BULK_BYTES``); the app, after its own run, merges what
    they left a slice at a time, and every search finds what it did before."""
    from tui import index_runner
    from tui_fixtures import SIZE, app_for, settle

    db, logs = tmp_path / "index.sqlite3", tmp_path / "logs"
    monkeypatch.setattr(run, "MERGE_SECONDS", 0.0)  # no run merges: only the app's slices can
    _grow_in_runs(db, logs, runs=6)
    before, hits = _segments(db), _hits(db)
    assert before["main.fts"] >= 6
    monkeypatch.setattr(index_runner, "MERGE_SLICE_SECONDS", 0.01)  # many slices, the lock let go between
    monkeypatch.setattr(index_runner, "MERGE_PAUSE_SECONDS", 0.0)
    app = app_for(db, corpus_roots(logs), refresh_on_start=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        after = _segments(db)
    assert after["main.fts"] <= 3 and after["side.words"] <= 3 and all(after[t] <= before[t] for t in after)
    assert _hits(db) == hits


async def test_a_run_the_app_starts_stops_its_merging_and_waits_for_it(tmp_path, monkeypatch):
    """Ctrl+R while the app merges: the merging is told to stop, the run waits for its last
    step (here 0.3 s, under the index lock) instead of finding the index busy, and the merging
    starts again after the run."""
    import time

    from tui_fixtures import SIZE, app_for, settle

    calls: list[str] = []

    def a_slice_until_told(conn, tables, *, seconds, should_stop=None, optimize=False):
        if not seconds:
            return False  # an index run's own slice (MERGE_SECONDS 0)
        calls.append("slice")
        if len(calls) > 1:
            return True  # the merging after the run: nothing left
        while not should_stop():
            time.sleep(0.01)
        time.sleep(0.3)  # its last step, still under the lock
        return False

    db, logs = tmp_path / "index.sqlite3", tmp_path / "logs"
    monkeypatch.setattr(run, "MERGE_SECONDS", 0.0)  # no run merges, the app's own included
    _grow_in_runs(db, logs, runs=6)  # more segments than a merged table keeps: the app merges
    monkeypatch.setattr(run, "merge_segments", a_slice_until_told)
    app = app_for(db, corpus_roots(logs), refresh_on_start=True)
    async with app.run_test(size=SIZE) as pilot:
        deadline = time.monotonic() + 10
        while not calls:
            assert time.monotonic() < deadline, "the app never started merging"
            await pilot.pause(0.01)
        await pilot.press("ctrl+r")
        await settle(pilot)
        told = [n.message for n in app._notifications]
    assert not [m for m in told if "busy" in m.lower() or "another" in m.lower()], told
    assert calls == ["slice", "slice"]


def test_a_new_index_keeps_no_token_counts_and_an_older_one_searches_alike(tmp_path):
    """``columnsize=0`` (no ``fts_docsize``): nothing reads the counts, so an index made before,
    which has them, finds exactly what a new one finds."""
    from indexer.text.fold import index_form

    path = tmp_path / "index.sqlite3"
    queries = ("error", "README", "test", "commit message", "function")
    with Index(path) as index:
        index.update(corpus_roots(), now=FIXED_NOW)
        tables = {r[0] for r in index.conn.execute("SELECT name FROM sqlite_master UNION ALL "
                                                    "SELECT name FROM side.sqlite_master")}
        assert "fts" in tables and "fts_side" in tables
        assert not {"fts_docsize", "fts_side_docsize"} & tables
        found = {q: [h.message.id for h in index.search(q, limit=50).hits] for q in queries}
        assert all(found.values())
    conn = sqlite3.connect(path)  # the table as an index before this one made it
    rows = conn.execute("SELECT id, text FROM messages WHERE indexed = 1").fetchall()
    conn.execute("DROP TABLE fts")
    conn.execute("CREATE VIRTUAL TABLE fts USING fts5 (text, content='messages', content_rowid='id', tokenize='trigram')")
    conn.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)", [(i, index_form(t)) for i, t in rows])
    conn.commit()
    assert conn.execute("SELECT count(*) FROM fts_docsize").fetchone()[0] == len(rows)
    conn.close()
    with Index(path) as index:
        assert {q: [h.message.id for h in index.search(q, limit=50).hits] for q in queries} == found


def _log_of_numbers(folder: Path, megabytes: float, session: str = "0c000000-0000-4000-8000-000000000026") -> None:
    """One Claude Code log of user messages holding numbers: many distinct trigrams a byte."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(session)
    lines, size, n = [], 0, 0
    while size < megabytes * 1e6:
        text = " ".join(str(rng.randrange(10**9)) for _ in range(400))
        n += 1
        lines.append(json.dumps({"type": "user", "uuid": f"{session}-{n}", "sessionId": session,
                                 "timestamp": "2026-03-01T10:00:00Z", "message": {"role": "user", "content": text}}))
        size += len(text)
    (folder / f"{session}.jsonl").write_text("\n".join(lines) + "\n")


def test_a_runs_trigram_entries_go_out_as_one_segment_a_commit(tmp_path, monkeypatch):
    """FTS5 writes a segment whenever its buffer of new entries fills (1 MB by default): one
    commit of a build wrote several, each merged again later. With ``PENDING_BYTES`` a log
    stored in one commit leaves one segment (the merging that would hide it is off here)."""
    monkeypatch.setattr(run, "MERGE_AFTER_BYTES", 10**12)
    monkeypatch.setattr(run, "BULK_MERGE_SHARE", 0.0)
    _log_of_numbers(tmp_path / "logs" / "-w-numbers", megabytes=1.5)
    db = tmp_path / "index.sqlite3"
    with Index(db) as index:
        index.stats()  # creates the file
        index.conn.execute("INSERT INTO fts(fts, rank) VALUES ('automerge', 0)")
        index.conn.execute("INSERT INTO fts(fts, rank) VALUES ('crisismerge', 1000)")
        summary = index.update(only_roots({"claude-code": [tmp_path / "logs"]}), now=FIXED_NOW, archive=False)
        assert summary.messages_added > 300
        assert segment_count(index.conn, "main.fts") == 1
        assert index.search("123", limit=5).hits


def _write_settings(db: Path) -> dict[str, int]:
    with closing(sqlite3.connect(db)) as conn:
        return dict(conn.execute("SELECT k, v FROM fts_config WHERE k IN ('hashsize', 'automerge', 'crisismerge')"))


def test_every_index_run_gives_the_trigram_table_its_write_settings(tmp_path):
    """A new index gets ``PENDING_BYTES``, ``AUTOMERGE`` and its crisis merge from its first run;
    one made before (FTS5's defaults) from its next run, even one that finds nothing new."""
    db = tmp_path / "index.sqlite3"
    ours = {"hashsize": fts_merge.PENDING_BYTES, "automerge": fts_merge.AUTOMERGE, "crisismerge": fts_merge.BULK_AUTOMERGE}

    def settings() -> dict[str, int]:
        return _write_settings(db)

    with Index(db) as index:
        index.update(corpus_roots(), now=FIXED_NOW, archive=False)
    assert settings() == ours
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DELETE FROM fts_config WHERE k IN ('hashsize', 'automerge', 'crisismerge')")  # as an index made before
    assert settings() == {}
    with Index(db) as index:
        quiet = index.update(corpus_roots(), now=FIXED_NOW, archive=False)
    assert quiet.messages_added == 0
    assert settings() == ours


def test_a_build_leaves_its_commits_to_its_own_merge_and_a_small_run_merges_as_before(tmp_path, monkeypatch):
    """A build (``BULK_BYTES``) lets its segments gather, a commit each, past the 16 at which FTS5
    would merge them into another while it reads, and merges them once at its end; the next small
    run gives the table ``AUTOMERGE`` again."""
    from indexer.ingest import side

    monkeypatch.setattr(side, "BATCH_SECONDS", 0.0)  # a commit after every log
    monkeypatch.setattr(run, "BULK_MERGE_SHARE", 0.0)  # its end merge, seen apart below
    monkeypatch.setattr(run, "MERGE_SECONDS", 0.0)
    monkeypatch.setattr(fts_merge, "BULK_BYTES", 1)  # every run reads like a build
    logs = tmp_path / "logs"
    for n in range(24):
        _log_of_numbers(logs / f"-w-n{n}", megabytes=0.02, session=f"0c000000-0000-4000-8000-{n:012d}")
    db = tmp_path / "index.sqlite3"
    with Index(db) as index:
        index.update(only_roots({"claude-code": [logs]}), now=FIXED_NOW, archive=False)
        assert _write_settings(db)["automerge"] == fts_merge.BULK_AUTOMERGE
        assert segment_count(index.conn, "main.fts") >= 20  # FTS5 merges 16 on one level into one
        assert merge_segments(index.conn, ["main.fts"], seconds=None, enough=run.MERGED_SEGMENTS)
        assert segment_count(index.conn, "main.fts") == 1  # one merge of them all
        assert index.search("123", limit=5).hits
        monkeypatch.setattr(fts_merge, "BULK_BYTES", 10**12)
        _log_of_numbers(logs / "-w-late", megabytes=0.02, session="0c000000-0000-4000-8000-100000000000")
        assert index.update(only_roots({"claude-code": [logs]}), now=FIXED_NOW, archive=False).messages_added > 0
    assert _write_settings(db)["automerge"] == fts_merge.AUTOMERGE


def _build_in_many_commits(tmp_path, monkeypatch) -> Path:
    """A build (``BULK_BYTES``) through the helper, a commit after every log, of 12 logs of
    Chinese and numbers: every table written in many segments."""
    from indexer.ingest import helper, side, stream

    monkeypatch.setattr(side, "BATCH_SECONDS", 0.0)
    monkeypatch.setattr(stream, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(helper, "SHARE_START", 0.5)  # the side file's trigram table takes text too
    monkeypatch.setattr(run, "BULK_BYTES", 1)
    monkeypatch.setattr(run, "BULK_MERGE_SHARE", 1000.0)  # time enough, on a loaded machine too
    rng = random.Random(27)
    for n in range(12):
        session = f"0d000000-0000-4000-8000-{n:012d}"
        folder = tmp_path / "logs" / f"-w-c{n}"
        folder.mkdir(parents=True)
        lines = [json.dumps({"type": "user", "uuid": f"{session}-{k}", "sessionId": session,
                             "timestamp": "2026-03-01T10:00:00Z",
                             "message": {"role": "user", "content": f"數據庫連線 {rng.randrange(10**9)} 驗收 第{k}次"}},
                            ensure_ascii=False) for k in range(20)]
        (folder / f"{session}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "index.sqlite3"
    with Index(db) as index:
        index.update(only_roots({"claude-code": [tmp_path / "logs"]}), now=FIXED_NOW, archive=False)
    return db


def test_a_build_ends_with_each_small_table_in_one_segment(tmp_path, monkeypatch):
    """A filter that asks each session's id range of the side file's tables pays once a
    segment: a build joins every table small enough into one (``JOIN_PAGES_AT_MOST``)."""
    db = _build_in_many_commits(tmp_path, monkeypatch)
    assert _segments(db) == {table: 1 for table in _segments(db)}
    with Index(db) as index:
        assert len(index.search("数据库连线", limit=300).hits) == 240


def test_a_table_over_the_size_to_join_is_left_to_the_slices(tmp_path, monkeypatch):
    monkeypatch.setattr(fts_merge, "JOIN_PAGES_AT_MOST", 0)
    db = _build_in_many_commits(tmp_path, monkeypatch)
    assert max(_segments(db).values()) > 1

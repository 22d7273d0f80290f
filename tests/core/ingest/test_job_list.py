"""The compact list of logs a run reads: each job comes back as it went in, newest first,
and a history of small logs is read whole with the helper's replies bounded."""

from __future__ import annotations

import json
import os
import pickle

from indexer import Index, only_roots
from indexer.ingest.job_list import JobList
from indexer.sources.base import SessionMeta
from indexer.store.rows import FileRow
from indexer.upkeep import pack_training


def _touch(path, mtime_ns: int, text: str = "x\n"):
    path.write_text(text)
    os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def test_jobs_come_back_as_added_newest_first(tmp_path):
    old = _touch(tmp_path / "old.jsonl", 1_600_000_000_123_456_789, "a\n" * 10)
    new = _touch(tmp_path / "new.jsonl", 1_700_000_000_987_654_321, "b\n" * 3)
    odd = _touch(tmp_path / "caf\u00e9.jsonl", 1_650_000_000_000_000_001, "c\n")
    row = FileRow(7, str(old), "claude-code", 20, 1, 2, 12, "h", "t", "{}", 3, 0)
    meta = SessionMeta(session_id="s1")
    jobs = JobList("/archive")
    jobs.add("claude-code", str(old), str(old), os.stat(old), (row, meta, b""))
    jobs.add("codex", str(new), str(new), os.stat(new), None, from_start=True)
    jobs.add("pi", str(odd), "stored-as-this", os.stat(odd), None)
    assert jobs.bytes_to_read() == (20 - 12) + 6 + 2
    jobs.sort_newest_first()
    assert [j.path for j in jobs] == [str(new), str(odd), str(old)]
    first, second, third = list(jobs)
    assert (first.agent, first.from_start, first.row, first.meta) == ("codex", True, None, None)
    assert (second.agent, second.key) == ("pi", "stored-as-this")
    st = os.stat(old)
    assert (third.size, third.mtime_ns, third.inode, third.ctime_ns) == (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
    assert third.row is row and third.meta is meta and third.archive_root == "/archive"
    assert abs(third.mtime - st.st_mtime) < 1e-6
    assert pickle.loads(pickle.dumps(third)).path == str(old)  # it goes to the helper process
    assert [j.path for j in jobs.take_all()] == [str(new), str(odd), str(old)]
    assert list(jobs) == [] and len(jobs) == 0  # let go once taken


def test_every_path_comes_back_exactly(tmp_path):
    """Paths are kept as a folder and a name's bytes: any str a path can be returns as it was,
    at the root, with names that are not UTF-8 (surrogate-escaped) and folders shared."""
    st = os.stat(tmp_path)
    paths = ["/top.jsonl", "/a/b/s1.jsonl", "/a/b/s2.jsonl", "/a/b\u00e9/\u65e5\u672c.jsonl",
             "/a/\udcff\udc80.jsonl", "/a/b/x\ud800y.jsonl", "relative.jsonl", "/a/b/"]
    jobs = JobList()
    for path in paths:
        jobs.add("claude-code", path, path, st, None)
    assert [j.path for j in jobs] == paths
    jobs.sort_newest_first()  # one mtime: by path, last first
    assert [j.path for j in jobs] == sorted(paths, reverse=True)


def test_many_small_logs_with_little_output_are_read_whole(tmp_path, monkeypatch):
    """More logs than the packing sample looks at, each too small to teach it: the run still
    reads every log once (and the helper's replies wait within their bound)."""
    monkeypatch.setattr(pack_training, "LOGS_AT_MOST", 5)
    monkeypatch.setattr("indexer.ingest.helper.REPLIES_AHEAD_BYTES", 1)
    monkeypatch.setattr("indexer.ingest.stream.PARALLEL_MIN_BYTES", 1)
    root = tmp_path / "projects" / "-w-demo"
    root.mkdir(parents=True)
    for n in range(40):
        line = {"type": "user", "uuid": f"u{n}", "sessionId": f"s{n}", "cwd": "/w/demo",
                "timestamp": "2026-03-01T10:00:00Z", "message": {"role": "user", "content": f"small log number {n}"}}
        (root / f"s{n}.jsonl").write_text(json.dumps(line) + "\n")
    with Index(tmp_path / "index.sqlite3") as index:
        summary = index.update(only_roots({"claude-code": [tmp_path / "projects"]}))
        assert summary.problems == [] and summary.files_seen == 40
        assert index.stats().sessions == 40 and index.stats().messages == 40
        (root / "s3.jsonl").unlink()
        again = index.update(only_roots({"claude-code": [tmp_path / "projects"]}))
        assert again.files_missing == 1 and again.messages_added == 0


def test_logs_of_one_clock_tick_are_ordered_by_path(tmp_path):
    """Same modification time (a checkout writes many files in one tick of the file system's
    clock): by path, last first, whatever order they were found in."""
    paths = [_touch(tmp_path / name, 1_700_000_000_000_000_000) for name in ("b.jsonl", "c.jsonl", "a.jsonl")]
    newer = _touch(tmp_path / "0.jsonl", 1_700_000_000_000_000_001)
    jobs = JobList()
    for path in [*paths, newer]:
        jobs.add("claude-code", str(path), str(path), os.stat(path), None)
    jobs.sort_newest_first()
    assert [os.path.basename(j.path) for j in jobs] == ["0.jsonl", "c.jsonl", "b.jsonl", "a.jsonl"]

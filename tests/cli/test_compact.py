"""``threadback index --compact`` as a real process: an index from before 16 KB pages comes out
with them, smaller and with every transcript as it was; a busy, read-only or too-full index
gets one line and keeps every byte."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from indexer import Index
from indexer.ingest import IndexLock
from indexer.upkeep.compact import CompactSpaceError, compact_index

from cli_process import assert_one_line_no_traceback, threadback
from conftest import FIXED_NOW, corpus_roots


def as_old_index(path: Path) -> None:
    """Rewrite ``path`` (and its side file) with 4 KB pages, as every index was before."""
    for file in (path, Path(str(path) + ".side")):
        conn = sqlite3.connect(file, isolation_level=None)
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("PRAGMA page_size = 4096")
        conn.execute("VACUUM")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.close()


def page_size(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()


def transcripts(path: Path) -> list[tuple]:
    index = Index(path)
    try:
        from indexer.store import browse

        rows = []
        for (rowid,) in index.conn.execute("SELECT id FROM sessions ORDER BY id"):
            rows += [(m.id, m.kind, m.text, m.detail) for m in browse.messages(index.conn, rowid)]
        return rows
    finally:
        index.close()


@pytest.fixture(scope="module")
def old_index(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("compact") / "index.sqlite3"
    index = Index(path)
    index.update(corpus_roots(), now=FIXED_NOW)
    index.close()
    as_old_index(path)
    return path


@pytest.fixture
def index_copy(old_index, tmp_path) -> Path:
    path = tmp_path / "index.sqlite3"
    for suffix in ("", ".side"):
        shutil.copy(str(old_index) + suffix, str(path) + suffix)
    return path


def test_new_index_files_have_16_kb_pages(tmp_path):
    index = Index(tmp_path / "index.sqlite3")
    index.stats()  # opens (creates) it
    index.close()
    assert page_size(tmp_path / "index.sqlite3") == page_size(tmp_path / "index.sqlite3.side") == 16384


def test_compact_rewrites_an_old_index_with_16_kb_pages_and_loses_nothing(index_copy):
    before = transcripts(index_copy)
    assert page_size(index_copy) == 4096
    proc = threadback("index", "--compact", "--db", str(index_copy))
    assert proc.returncode == 0, proc.stderr
    assert "index.sqlite3: " in proc.stdout and "pages 4 KB -> 16 KB" in proc.stdout
    assert "compacted: " in proc.stdout and "saved" in proc.stdout
    assert page_size(index_copy) == page_size(Path(str(index_copy) + ".side")) == 16384
    conn = sqlite3.connect(index_copy)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    assert transcripts(index_copy) == before
    found = threadback("search", "the", "-n", "1", "--db", str(index_copy))
    assert found.returncode == 0 and found.stdout.strip()
    again = threadback("index", "--compact", "--json", "--db", str(index_copy))
    report = json.loads(again.stdout)
    assert again.returncode == 0 and [f["page_size_before"] for f in report["files"]] == [16384, 16384]


def test_compact_while_an_index_run_holds_the_lock_is_one_line(index_copy):
    with IndexLock(index_copy):
        proc = threadback("index", "--compact", "--db", str(index_copy))
    assert proc.returncode == 75
    assert "another Threadback index run" in assert_one_line_no_traceback(proc)
    assert page_size(index_copy) == 4096


def test_compact_while_another_program_has_the_index_open_is_one_line(index_copy):
    before = transcripts(index_copy)
    holder = sqlite3.connect(index_copy, isolation_level=None)
    holder.execute("BEGIN")
    holder.execute("SELECT count(*) FROM messages").fetchone()  # a reader mid-transaction
    try:
        proc = threadback("index", "--compact", "--db", str(index_copy))
    finally:
        holder.execute("COMMIT")
        holder.close()
    assert proc.returncode == 75
    assert "open in another program" in assert_one_line_no_traceback(proc)
    assert page_size(index_copy) == 4096 and transcripts(index_copy) == before


def test_a_missing_index_is_one_line(tmp_path):
    proc = threadback("index", "--compact", "--db", str(tmp_path / "none.sqlite3"))
    assert proc.returncode == 3
    assert "no index there" in assert_one_line_no_traceback(proc)


def test_too_little_free_disk_is_told_before_anything_changes(old_index, tmpfs):
    size = old_index.stat().st_size
    disk = tmpfs(f"{(size * 3 // 2 + 256 * 1024) // 1024}k")  # the index fits, twice it does not
    path = disk / "index.sqlite3"
    for suffix in ("", ".side"):
        shutil.copy(str(old_index) + suffix, str(path) + suffix)
    before = path.read_bytes()
    proc = threadback("index", "--compact", "--db", str(path), TMPDIR=str(disk), SQLITE_TMPDIR=str(disk))
    assert proc.returncode == 7
    line = assert_one_line_no_traceback(proc)
    assert "not enough free disk to compact" in line and "nothing was changed" in line
    assert path.read_bytes() == before


def test_a_disk_that_fills_during_the_vacuum_loses_nothing(old_index, tmpfs, monkeypatch):
    """Past the free-space check (another program wrote meanwhile): SQLite's VACUUM rolls back."""
    size = old_index.stat().st_size
    disk = tmpfs(f"{(size * 3 // 2 + 256 * 1024) // 1024}k")
    path = disk / "index.sqlite3"
    for suffix in ("", ".side"):
        shutil.copy(str(old_index) + suffix, str(path) + suffix)
    before = transcripts(path)
    monkeypatch.setenv("SQLITE_TMPDIR", str(disk))
    with pytest.raises(Exception) as caught:
        compact_index(path, check_space=False)
    assert isinstance(caught.value, CompactSpaceError) and "the disk filled while compacting" in str(caught.value)
    assert page_size(path) == 4096 and transcripts(path) == before


def test_a_read_only_index_is_one_line(old_index, tmpfs):
    disk = tmpfs("64m")
    path = disk / "index.sqlite3"
    for suffix in ("", ".side"):
        shutil.copy(str(old_index) + suffix, str(path) + suffix)
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True, capture_output=True)
    proc = threadback("index", "--compact", "--db", str(path))
    assert proc.returncode == 6
    assert "read-only" in assert_one_line_no_traceback(proc)

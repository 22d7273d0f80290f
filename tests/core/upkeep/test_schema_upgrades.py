"""The two schema steps after version 3, each on its own: an index at 4 (folded, from before
inode change times and the failures table) gets step 5 only; an index at 3 gets step 4 (folded
in place by the next run) and step 5. Neither reads a log again."""

from __future__ import annotations

import os
import sqlite3

import pytest

from indexer import Index, IndexOutdatedError
from indexer.store.schema import SCHEMA_VERSION

from old_schemas import columns_of, stat_index_columns, without_version_5
from test_folding import logs, sessions_found, side_is_sound, unfolded_index, update  # noqa: F401 - logs is a fixture


def meta_keys(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT key FROM meta")}


def test_a_version_4_index_gets_only_the_fifth_step(logs, tmp_path):
    path = tmp_path / "index.sqlite3"
    with Index(path) as index:
        update(index, logs)
    without_version_5(path, version=4)
    with Index(path) as index:
        conn = index.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert "ctime_ns" in columns_of(conn, "files") and "failures" in {
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert stat_index_columns(conn) == ["path", "size", "mtime_ns", "ctime_ns", "inode", "missing"]
        assert "sessions_by_end" in {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "fold_below" not in meta_keys(conn)  # folded already: nothing to fold again
        assert conn.execute("SELECT min(ctime_ns) FROM files").fetchone()[0] == 0  # not known yet
        summary = update(index, logs)
        assert (summary.files_changed, summary.bytes_read) == (0, 0)  # nothing read again
        assert conn.execute("SELECT min(ctime_ns) FROM files").fetchone()[0] > 0
        assert sessions_found(index, "冪等的遷移") == sessions_found(index, "幂等的迁移") == {"s-hant"}
        # The new column works: a same-size rewrite with its mtime put back is noticed.
        log = logs / "-w-demo" / "s-en.jsonl"
        before = log.stat()
        log.write_bytes(log.read_bytes().replace(b"nothing chinese", b"notably chinese"))
        os.utime(log, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert log.stat().st_size == before.st_size
        assert update(index, logs).files_reindexed == 1
        assert sessions_found(index, "notably") == {"s-en"}
    side_is_sound(path)


def test_a_version_3_index_gets_both_steps(logs, tmp_path, monkeypatch):
    path = tmp_path / "index.sqlite3"
    unfolded_index(monkeypatch, logs, path)  # a real version 3 file: unfolded, no ctime_ns, no failures
    with Index(path) as index:
        conn = index.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert "fold_below" in meta_keys(conn)  # step 4: the next run folds in place
        assert "ctime_ns" in columns_of(conn, "files")  # step 5
        assert "ctime_ns" in stat_index_columns(conn)
        assert conn.execute("SELECT count(*) FROM failures").fetchone()[0] == 0
        assert sessions_found(index, "幂等的迁移") == set()  # not folded yet
        summary = update(index, logs)
        assert (summary.files_changed, summary.bytes_read) == (0, 0)
        assert "fold_below" not in meta_keys(conn)
        assert conn.execute("SELECT min(ctime_ns) FROM files").fetchone()[0] > 0
        assert sessions_found(index, "幂等的迁移") == {"s-hant"}
        assert sessions_found(index, "回滚") == {"s-hant", "s-hans"}
    side_is_sound(path)


def test_an_older_index_is_not_upgraded_by_a_reader(logs, tmp_path):
    """Readers open the index read-only: an index at 4 is left for a writer to upgrade."""
    path = tmp_path / "index.sqlite3"
    with Index(path) as index:
        update(index, logs)
    without_version_5(path, version=4)
    with pytest.raises(IndexOutdatedError):
        Index(path, readonly=True).check()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 4
    conn.close()

"""Schema step 6 on its own: an index at 5 gets ``files.archived`` and ``files_touched`` without
reading any log again, and its next run copies every log still on disk into the archive."""

from __future__ import annotations

from indexer import Index, only_roots
from indexer.store.schema import SCHEMA_VERSION

from agent_logs import claude_session
from conftest import FIXED_NOW
from old_schemas import columns_of, without_version_6


def test_a_version_5_index_gets_the_sixth_step_and_its_logs_archived(tmp_path):
    root, db = tmp_path / "logs", tmp_path / "i.sqlite3"
    kept = claude_session(root, "s-kept", "demo", ["still on disk", "yes"])
    gone = claude_session(root, "s-gone", "demo", ["already deleted by the agent", "yes"], day=2)
    roots = only_roots({"claude-code": [root]})
    with Index(db) as index:
        index.update(roots, now=FIXED_NOW, archive=False)
    gone.unlink()
    without_version_6(db)
    with Index(db) as index:
        conn = index.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert "archived" in columns_of(conn, "files")
        assert conn.execute("SELECT count(*) FROM files_touched").fetchone()[0] == 0
        summary = index.update(roots, now=FIXED_NOW, archive=True)
        assert summary.files_changed == 0  # no log read again for the index...
        assert summary.archive_files == 1  # ...but the one still on disk is copied
        assert index.session("s-kept").archived and not index.session("s-kept").source_missing
        assert index.session("s-gone").source_missing and not index.session("s-gone").archived_only
    original = kept.read_bytes()
    kept.unlink()
    with Index(db) as index:
        index.restore(index.session("s-kept"))
    assert kept.read_bytes() == original

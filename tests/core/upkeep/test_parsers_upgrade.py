"""An index written before schema 3 upgrades in place: the new columns appear, a Pi fork stored
as a subagent becomes a linked session of its own (even when its log is gone), slash-command
titles give way to real prompts, and every log still on disk is read again once."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from indexer import Index
from indexer.store import errors as db

from conftest import FIXED_NOW
from old_schemas import without_version_5
from test_parsers_newest import CODEX_ARCHIVED, NEWEST, PI_FORK, PI_ORIGIN, newest_roots


def make_version_2(path: Path) -> None:
    """Turn a current index into what schema 2 wrote for the same logs."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("UPDATE sessions SET parent_session_id = branched_from WHERE agent = 'pi'")
    conn.execute("UPDATE sessions SET title_rank = title_rank - 1 WHERE title_rank > 1")
    conn.execute("UPDATE sessions SET title = '/clear', title_rank = 1 WHERE session_id = ?", (CODEX_ARCHIVED,))
    for table, column in (("sessions", "branched_from"), ("sessions", "resume_cwd"), ("messages", "mark")):
        conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    conn.close()
    without_version_5(path, version=2)


@pytest.fixture
def old_index(tmp_path) -> tuple[Path, Path]:
    logs = tmp_path / "logs"
    shutil.copytree(NEWEST, logs)
    path = tmp_path / "index.sqlite3"
    with Index(path) as index:
        index.update(newest_roots(logs), now=FIXED_NOW)
    make_version_2(path)
    return path, logs


def test_a_version_2_index_upgrades_and_reads_its_logs_again_once(old_index):
    path, logs = old_index
    with pytest.raises(db.IndexOutdatedError, match="run `threadback index`"):
        Index(path, readonly=True).conn
    with Index(path) as index:
        messages = index.stats().messages
        fork = index.session(PI_FORK)
        assert fork.parent_session_id is None and fork.branched_from == PI_ORIGIN  # before any re-read
        summary = index.update(newest_roots(logs), now=FIXED_NOW)
        assert summary.files_reindexed == summary.files_seen == 8 and not summary.problems
        assert index.stats().messages == messages  # read again, nothing doubled
        assert index.session(CODEX_ARCHIVED).title == "Rename the billing cron job to nightly-invoices"
        assert any(m.mark == "abandoned branch" for m in index.messages(index.session(PI_FORK)))
        assert index.update(newest_roots(logs), now=FIXED_NOW).files_changed == 0


def test_a_fork_whose_log_is_gone_is_still_listed_after_the_upgrade(old_index):
    path, logs = old_index
    for log in (logs / "pi").rglob(f"*{PI_FORK}.jsonl"):
        log.unlink()
    with Index(path) as index:
        summary = index.update(newest_roots(logs), now=FIXED_NOW)
        assert summary.files_missing == 1
        fork = index.session(PI_FORK)
        assert fork.branched_from == PI_ORIGIN and fork.source_missing
        assert PI_FORK in {s.session_id for s in index.sessions(agent="pi", parent=None)}
        assert index.search('"first names only"', now=FIXED_NOW).hits

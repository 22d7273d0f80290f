"""The targeted index run behind live updates: only the files named are read, nothing else
is touched or marked missing, names outside the log folders are ignored, and a locked index
is reported (the app skips that tick and tries again)."""

from __future__ import annotations

import pytest

from indexer import Index, IndexBusyError, only_roots
from indexer.ingest import IndexLock

from agent_logs import claude_session
from conftest import FIXED_NOW


def test_only_the_named_logs_are_read(tmp_path):
    root = tmp_path / "claude"
    a = claude_session(root, "s-a", "proj", ["first a", "reply a"])
    b = claude_session(root, "s-b", "proj", ["first b", "reply b"])
    roots = only_roots({"claude-code": [root]})
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        claude_session(root, "s-a", "proj", ["first a", "reply a", "more a"])  # both grow
        claude_session(root, "s-b", "proj", ["first b", "reply b", "more b"])
        c = claude_session(root, "s-c", "other", ["a new session"])
        outside = tmp_path / "elsewhere" / "s-x.jsonl"
        outside.parent.mkdir()
        outside.write_bytes(a.read_bytes())
        summary = index.update(roots, now=FIXED_NOW, only=[str(a), str(c), str(outside),
                                                            str(root / "-w-proj" / "notes.md"), str(root / "gone.jsonl")])
        assert (summary.files_seen, summary.files_appended, summary.files_new, summary.files_missing) == (2, 1, 1, 0)
        assert index.session("s-a").message_count == 3
        assert index.session("s-b").message_count == 2  # not named: not read, though it grew
        assert index.session("s-c").message_count == 1
        b.unlink()
        index.update(roots, now=FIXED_NOW, only=[str(a)])
        assert not index.session("s-b").source_missing  # a live run marks nothing missing
        assert index.update(roots, now=FIXED_NOW).files_missing == 1  # a full run does


def test_a_locked_index_is_busy_at_once(tmp_path):
    root = tmp_path / "claude"
    a = claude_session(root, "s-a", "proj", ["first a"])
    path = tmp_path / "i.sqlite3"
    with Index(path) as index, IndexLock(path):
        with pytest.raises(IndexBusyError):
            index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW, only=[str(a)])

"""Sessions whose parent is not in the index are listed at the top, marked, never lost from
every list (issue 11): subagents of a parent whose log is empty; a Pi session branched from a
file that no longer exists."""

from __future__ import annotations

import json

from indexer import Index, only_roots

from cli_process import threadback
from conftest import FIXED_NOW

PARENT = "aaaa1111-2222-3333-4444-555555555555"


def subagent_tree(root, parent_lines: list[dict]):
    project = root / "-w-demo"
    (project / PARENT / "subagents").mkdir(parents=True)
    (project / f"{PARENT}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in parent_lines))
    line = {"type": "user", "uuid": "s1", "sessionId": PARENT, "agentId": "a1b2", "isSidechain": True, "cwd": "/w/demo",
            "timestamp": "2026-03-01T10:00:00Z", "message": {"role": "user", "content": "orphaned subagent work"}}
    (project / PARENT / "subagents" / "agent-a1b2.jsonl").write_text(json.dumps(line) + "\n")
    return only_roots({"claude-code": [root]})


def test_subagents_of_a_parent_whose_log_is_empty_are_listed_at_the_top(tmp_path):
    roots = subagent_tree(tmp_path / "logs", [])
    db = tmp_path / "i.sqlite3"
    with Index(db) as index:
        index.update(roots, now=FIXED_NOW)
        [top] = index.sessions(parent=None)
        assert top.parent_session_id == PARENT and top.parent_missing
        assert index.agents() == [("claude-code", 1)]
        [project] = index.projects("claude-code")
        assert project.session_count == 1
        [(day, count)] = index.days("claude-code", project.project_path)
        assert count == 1 and index.sessions_on_day("claude-code", project.project_path, day) == [top]
    proc = threadback("sessions", "--db", str(db))
    assert proc.returncode == 0 and "(subagent, parent not indexed)" in proc.stdout
    listed = json.loads(threadback("sessions", "--db", str(db), "--json").stdout)
    assert listed[0]["parent_indexed"] is False


def test_a_subagent_goes_under_its_parent_once_the_parent_is_indexed(tmp_path):
    root = tmp_path / "logs"
    roots = subagent_tree(root, [])
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        parent = {"type": "user", "uuid": "p1", "sessionId": PARENT, "cwd": "/w/demo", "timestamp": "2026-03-01T09:00:00Z",
                  "message": {"role": "user", "content": "the parent at last"}}
        (root / "-w-demo" / f"{PARENT}.jsonl").write_text(json.dumps(parent) + "\n")
        index.update(roots, now=FIXED_NOW)
        [top] = index.sessions(parent=None)
        assert top.session_id == PARENT and not top.parent_missing
        [child] = index.children(top)
        assert not child.parent_missing


def test_a_pi_session_branched_from_a_vanished_file_is_a_top_level_session(corpus_index):
    """The biggest session in the Pi corpus was branched from a file that is not there."""
    sessions = corpus_index.sessions(agent="pi", parent=None, limit=None)
    [branch] = [s for s in sessions if s.session_id.startswith("ffae836b")]
    assert branch.branched_from and corpus_index.session(f"pi:{branch.branched_from}") is None
    assert not branch.parent_missing and branch.parent_session_id is None


def test_the_tree_marks_an_orphan_and_the_sessions_filter_finds_it_at_the_top(tmp_path):
    from tui.widgets.session_tree import filtered_tree, session_label

    roots = subagent_tree(tmp_path / "logs", [])
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        [top] = index.sessions(parent=None)
        label = session_label(top, None, FIXED_NOW).plain
        assert label.startswith("10:00  orphaned subagent work  1 msg") and label.endswith(" · subagent, parent not indexed")
        [agent] = filtered_tree(index, "orphaned", FIXED_NOW)
        [project] = agent.nested
        [day] = project.nested
        [session] = day.nested
        assert session.data.session == top and "parent not indexed" in session.label.plain

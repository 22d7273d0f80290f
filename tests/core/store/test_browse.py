"""Browsing the index as the session tree does: agents, projects, days, sessions, subagents."""

from __future__ import annotations


def test_tree_levels_agree_with_each_other(corpus_index):
    agents = dict(corpus_index.agents())
    assert set(agents) == {"claude-code", "codex", "pi"}
    for agent, count in agents.items():
        projects = corpus_index.projects(agent)
        assert sum(p.session_count for p in projects) == count
        for project in projects:
            days = corpus_index.days(agent, project.project_path)
            assert sum(n for _, n in days) == project.session_count
            for day, n in days:
                sessions = corpus_index.sessions_on_day(agent, project.project_path, day)
                assert len(sessions) == n
                assert all((s.parent_session_id is None or s.parent_missing) and s.project_path == project.project_path
                           for s in sessions)


def test_parent_and_children(corpus_index):
    parent = corpus_index.session("29ccd257-68b1-427f-ae5f-6524b7cb6f20")
    (child,) = corpus_index.children(parent)
    assert child.session_id == "agent-a2271d1"
    assert corpus_index.parent(child).id == parent.id
    assert corpus_index.parent(parent) is None

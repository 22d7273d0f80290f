"""A subagent working in a worktree Claude Code made inside its parent's project belongs to that
project (not to a project called ``agent-ab1e6e14``), whichever of the two files is read first."""

from __future__ import annotations

import json
from pathlib import Path

from indexer import Index, only_roots
from indexer.ingest.session_rows import is_worktree_of

from conftest import FIXED_NOW

PARENT = "11111111-2222-3333-4444-555555555555"


def line(cwd: str, text: str, session_id: str = PARENT, sidechain: bool = False) -> str:
    return json.dumps({"type": "user", "uuid": f"u-{abs(hash((cwd, text)))}", "sessionId": session_id,
                       "cwd": cwd, "isSidechain": sidechain, "timestamp": "2026-06-01T10:00:00Z",
                       "message": {"role": "user", "content": text}}) + "\n"


def write_parent(folder: Path) -> None:
    (folder / f"{PARENT}.jsonl").write_text(line("/src/app", "Split the work between two agents"))


def write_subagents(folder: Path) -> None:
    subagents = folder / PARENT / "subagents"
    subagents.mkdir(parents=True)
    (subagents / "agent-aaa111.jsonl").write_text(
        line("/src/app/.claude/worktrees/agent-aaa111", "Research the parser", sidechain=True))
    (subagents / "agent-bbb222.jsonl").write_text(line("/src/app/docs", "Write the docs", sidechain=True))
    (subagents / "agent-ccc333.jsonl").write_text(line("/elsewhere/tool", "Look elsewhere", sidechain=True))


def projects(index: Index) -> dict[str, tuple[str | None, str | None]]:
    return {s.session_id: (s.project_path, s.project_name) for s in index.sessions(limit=None)}


def test_is_worktree_of():
    assert is_worktree_of("/src/app/.claude/worktrees/agent-1", "/src/app")
    assert is_worktree_of("/src/app/.claude/worktrees/agent-1", "/src/app/")
    assert is_worktree_of("C:\\src\\app\\.claude\\worktrees\\agent-1", "C:\\src\\app")
    assert not is_worktree_of("/src/app/docs", "/src/app")
    assert not is_worktree_of("/src/app2/.claude/worktrees/agent-1", "/src/app")
    assert not is_worktree_of(None, "/src/app") and not is_worktree_of("/x", None)


def test_the_corpus_worktree_subagents_belong_to_their_parents_project(corpus_index):
    found = projects(corpus_index)
    for agent in ("agent-ab1e6e141221a29ab", "agent-a52886dc180afb356", "agent-a4ca7529859c158c2"):
        assert found[agent] == ("-experiments/worktrees", "worktrees"), agent
    assert not any(name and name.startswith("agent-") for _, name in found.values())


def test_a_worktree_subagent_read_with_its_parent(tmp_path):
    folder = tmp_path / "projects" / "-src-app"
    folder.mkdir(parents=True)
    write_parent(folder)
    write_subagents(folder)
    index = Index(tmp_path / "index.sqlite3")
    index.update(only_roots({"claude-code": [tmp_path / "projects"]}), now=FIXED_NOW)
    found = projects(index)
    assert found["agent-aaa111"] == ("/src/app", "app")
    assert found["agent-bbb222"] == ("/src/app/docs", "docs")  # a subfolder, no worktree: its own
    assert found["agent-ccc333"] == ("/elsewhere/tool", "tool")


def test_a_worktree_subagent_read_before_its_parent_is_adopted_later(tmp_path):
    folder = tmp_path / "projects" / "-src-app"
    folder.mkdir(parents=True)
    write_subagents(folder)
    index = Index(tmp_path / "index.sqlite3")
    roots = only_roots({"claude-code": [tmp_path / "projects"]})
    index.update(roots, now=FIXED_NOW)
    assert projects(index)["agent-aaa111"][1] == "agent-aaa111"  # no parent yet
    write_parent(folder)
    index.update(roots, now=FIXED_NOW + 60)
    found = projects(index)
    assert found["agent-aaa111"] == ("/src/app", "app")
    assert found["agent-ccc333"] == ("/elsewhere/tool", "tool")

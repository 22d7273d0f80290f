"""'This project' (ctrl+o in the app): the start folder's git repository and what is under it,
or the folder alone; matched on the session's folder exactly, never as a substring of a name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.project_scope import ProjectScope, project_scope_of, repository_root
from tui.widgets.result_list import ResultList
from tui_fixtures import SIZE, app_for, settle, type_query

from conftest import FIXED_NOW


def write_session(root: Path, cwd: Path, session_id: str, text: str) -> None:
    """A one-prompt Claude Code log started in ``cwd``."""
    folder = root / str(cwd).replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    line = {"type": "user", "uuid": f"u-{session_id}", "sessionId": session_id, "cwd": str(cwd),
            "timestamp": "2026-06-01T10:00:00Z", "message": {"role": "user", "content": text}}
    (folder / f"{session_id}.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """A home with a repository (a session at its root, one in a subfolder), a sibling whose
    name starts the same, the folder above them, and a folder whose name contains "work"."""
    home = tmp_path / "home"
    places = {
        "repo": home / "work" / "repo",
        "repo-sub": home / "work" / "repo" / "src" / "deep",
        "repo-other": home / "work" / "repo-other",
        "work": home / "work",
        "workspace": home / "workspace" / "x",
    }
    for folder in places.values():
        folder.mkdir(parents=True, exist_ok=True)
    (places["repo"] / ".git").mkdir()
    logs = tmp_path / "logs"
    for name, folder in places.items():
        write_session(logs, folder, f"s-{name}", f"needle found in {name}")
    places["home"] = home
    places["logs"] = logs
    return places


def indexed(tree: dict[str, Path], tmp_path: Path) -> Path:
    path = tmp_path / "index.sqlite3"
    index = Index(path)
    index.update(only_roots({"claude-code": [tree["logs"]]}), now=FIXED_NOW)
    index.close()
    return path


def found(index: Index, scope: ProjectScope | None) -> set[str]:
    result = index.search("needle", now=FIXED_NOW, project_scope=scope)
    return {h.session.session_id for h in result.hits}


def test_a_repository_means_its_root_and_what_is_under_it(tree, tmp_path):
    scope = project_scope_of(tree["repo-sub"], home=tree["home"])
    assert scope == ProjectScope(str(tree["repo"]), include_subfolders=True)
    index = Index(indexed(tree, tmp_path))
    assert found(index, scope) == {"s-repo", "s-repo-sub"}
    assert len(found(index, None)) == 5


def test_the_session_view_keeps_the_same_project(tree, tmp_path):
    """ctrl+g with ctrl+o on: the session-level search keeps the same project's sessions, for
    one word and for several (a sibling folder named repo-other has them all, and is left out)."""
    scope = project_scope_of(tree["repo-sub"], home=tree["home"])
    index = Index(indexed(tree, tmp_path))
    for query in ("needle", "needle found repo"):
        result = index.search(query, now=FIXED_NOW, project_scope=scope, by_session=True, closest=False)
        assert {s.session.session_id for s in result.sessions} == {"s-repo", "s-repo-sub"}, query
    unscoped = index.search("needle found repo", now=FIXED_NOW, by_session=True, closest=False)
    assert {s.session.session_id for s in unscoped.sessions} == {"s-repo", "s-repo-sub", "s-repo-other"}


def test_outside_a_repository_the_folder_alone(tree, tmp_path):
    """Started from ~/work: neither the projects under it nor every path containing "work"."""
    scope = project_scope_of(tree["work"], home=tree["home"])
    assert scope == ProjectScope(str(tree["work"]))
    assert found(Index(indexed(tree, tmp_path)), scope) == {"s-work"}


def test_a_name_with_like_wildcards_is_matched_literally(tmp_path):
    logs = tmp_path / "logs"
    write_session(logs, tmp_path / "a_b", "s-exact", "needle")
    write_session(logs, tmp_path / "a_b" / "c", "s-under", "needle")
    write_session(logs, tmp_path / "axb" / "c", "s-wildcard", "needle")
    path = tmp_path / "index.sqlite3"
    Index(path).update(only_roots({"claude-code": [logs]}), now=FIXED_NOW)
    scope = ProjectScope(str(tmp_path / "a_b"), include_subfolders=True)
    assert found(Index(path), scope) == {"s-exact", "s-under"}


def test_a_git_worktree_file_marks_a_repository_and_a_home_repository_does_not(tmp_path):
    home = tmp_path / "home"
    worktree = home / "wt" / "feature" / "src"
    worktree.mkdir(parents=True)
    (home / "wt" / "feature" / ".git").write_text("gitdir: /elsewhere/.git/worktrees/feature\n")
    assert repository_root(worktree, home=home) == home / "wt" / "feature"
    (home / ".git").mkdir()  # dotfiles kept in git: not a project holding every other one
    loose = home / "notes"
    loose.mkdir()
    assert repository_root(loose, home=home) is None
    assert project_scope_of(loose, home=home) == ProjectScope(str(loose))


def test_contains_is_exact_or_under():
    scope = ProjectScope("/home/me/work/repo", include_subfolders=True)
    assert scope.contains("/home/me/work/repo") and scope.contains("/home/me/work/repo/src")
    assert not scope.contains("/home/me/work/repo-other") and not scope.contains("/home/me/work")
    assert not ProjectScope("/home/me/work").contains("/home/me/work/repo")
    assert scope.name == "repo"


async def test_ctrl_o_keeps_this_project_only(tree, tmp_path):
    scope = project_scope_of(tree["repo-sub"], home=tree["home"])
    app = app_for(indexed(tree, tmp_path), only_roots({"claude-code": [tree["logs"]]}), project_scope=scope,
                  project_name=None)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "needle")
        assert len(app.screen.query_one(ResultList).hits) == 5
        await pilot.press("ctrl+o")
        await settle(pilot)
        hits = app.screen.query_one(ResultList).hits
        assert {h.session.session_id for h in hits} == {"s-repo", "s-repo-sub"}
        assert "project repo" in str(app.screen.query_one("#search-info").render())
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert len(app.screen.query_one(ResultList).hits) == 5
        assert "project all" in str(app.screen.query_one("#search-info").render())
        warnings = [n.message for n in app._notifications if n.severity == "warning"]
        assert warnings == []  # turning it off is no "no current project"

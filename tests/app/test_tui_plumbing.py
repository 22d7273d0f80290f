"""How screens plug into the app: help from each screen's own keys, one memory folder followed
by every screen after a switch, and background work that fails shown to the user."""

from __future__ import annotations

from pathlib import Path

from indexer.config import global_memory_dir
from indexer.rules import RuleStore
from tui.screens.help import HelpScreen
from tui.screens.memory import MemoryScreen
from tui.screens.rules import RulesScreen
from tui.screens.search import SearchScreen
from tui.screens.sessions import SessionsScreen
from tui.widgets.result_list import ResultList

from conftest import FIXED_NOW
from tui_fixtures import SIZE, app_for, settle, type_query, write_sample_memory


def help_text(app) -> str:
    body = app.screen.query_one("#help-body")
    return "\n".join(body.render_line(y).text for y in range(body.size.height))


async def test_help_lists_the_memory_and_rules_screens_own_keys(corpus_index_path, tmp_path):
    app = app_for(corpus_index_path, memory_dir=write_sample_memory(tmp_path / "memory"))
    async with app.run_test(size=(120, 80)) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = help_text(app)
        for expected in ("Memory", "Next folder", "Fact tab", "Episodic tab", "Show archived",
                         "Scratchpad tab", "Everywhere", "Editor", "Indent", "Next tab", "Promote",
                         "Archive all decayed"):
            assert expected in text, expected
        assert "Approve" not in text  # not the rules screen's keys
        await pilot.press("escape")
        await pilot.press("f5")
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        text = help_text(app)
        assert "Rules" in text and "Approve all…" in text and "Open session" in text
        assert "Undo last decision" in text and "Back to pending" in text
        assert "Next folder" not in text


async def test_switching_the_memory_folder_moves_search_and_rules_with_it(
        corpus_index_path, tmp_path, monkeypatch, private_threadback_home):
    global_folder = write_sample_memory(global_memory_dir())
    RuleStore(global_folder).propose("Global rule: run ruff before committing.", now=FIXED_NOW, agent="codex")
    project = tmp_path / "project"
    for text in ("Project rule one.", "Project rule two."):
        RuleStore(project / "memory").propose(text, now=FIXED_NOW, agent="codex")
    monkeypatch.chdir(project)  # its memory/ holds only rules: the app opens it
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.pending_rules == 2
        await pilot.press("ctrl+f")  # sessions + memory
        await type_query(pilot, "設定")
        assert list(app.screen.query_one(ResultList).memory_hits) == []

        await pilot.press("f4")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen) and app.screen.store.folder == project / "memory"
        await pilot.press("ctrl+o")  # to the global folder
        await settle(pilot)
        assert app.screen.store.folder == global_folder
        assert app.context.memory_dir == global_folder
        assert app.pending_rules == 1

        await pilot.press("f2")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        assert "ep-1a2b3c4d" in [h.id for h in app.screen.query_one(ResultList).memory_hits]

        await pilot.press("f5")
        await settle(pilot)
        assert isinstance(app.screen, RulesScreen) and app.screen.store.memory_dir == global_folder
        assert [r.text for r in app.screen.visible_rules()] == ["Global rule: run ruff before committing."]


async def test_a_failing_worker_is_shown_not_swallowed(corpus_index_path, monkeypatch):
    app = app_for(corpus_index_path)

    def broken() -> list:
        raise OSError("the disk went away")

    monkeypatch.setattr(app.context.index, "agents", broken)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert [n.message for n in errors] == ["Loading the sessions failed: the disk went away"]


def test_the_rules_screen_alone_needs_no_app(tmp_path: Path):
    """A screen shown on its own (tests, a host app) works without the app's context."""
    screen = RulesScreen(RuleStore(tmp_path / "memory"))
    assert screen.context is None

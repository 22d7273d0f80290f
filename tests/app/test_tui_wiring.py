"""The memory and rules screens inside the real app: its memory folder, the pending-rule count
in the status line, and a rule's source session opening as a transcript."""

from __future__ import annotations

import json

from textual.widgets import Static

from indexer.rules import RuleStore
from tui.screens.memory import MemoryScreen
from tui.screens.rules import RulesScreen
from tui.screens.transcript import TranscriptScreen
from tui.widgets.status_bar import StatusBar

from conftest import FIXED_NOW
from tui_fixtures import SIZE, app_for, settle


def _memory_folder(tmp_path):
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "fact.yml").write_text("name: Dain  # kept\n", encoding="utf-8")
    (folder / "episodic.jsonl").write_text(json.dumps({"id": "ep-00000001", "ts": "2026-06-30T00:00:00Z",
                                                        "type": "lesson", "summary": "wired memory"}) + "\n")
    store = RuleStore(folder)
    store.propose("Run the linter before committing.", now=FIXED_NOW - 60, agent="claude-code",
                  session_id="29ccd257-68b1-427f-ae5f-6524b7cb6f20")
    store.propose("Prefer uv over pip.", now=FIXED_NOW - 30, agent="codex")
    return folder


def _status(app) -> str:
    return str(app.screen.query_one(StatusBar).query_one("#status-text", Static).render())


async def test_status_line_counts_pending_rules_and_modes_use_the_memory_folder(corpus_index_path, tmp_path):
    folder = _memory_folder(tmp_path)
    app = app_for(corpus_index_path, memory_dir=folder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.pending_rules == 2
        assert "2 rules to review" in _status(app)
        await pilot.press("f4")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen)
        assert app.screen.store.folder == folder
        await pilot.press("f5")
        await settle(pilot)
        assert isinstance(app.screen, RulesScreen)
        assert app.screen.store.memory_dir == folder
        assert "2 rules to review" in _status(app)


async def test_a_rule_opens_the_session_it_came_from(corpus_index_path, tmp_path):
    folder = _memory_folder(tmp_path)
    app = app_for(corpus_index_path, memory_dir=folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RulesScreen)
        rules = screen.visible_rules()
        linked = next(i for i, r in enumerate(rules) if r.session_id)
        screen.query_one("#rules-list").highlighted = linked
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert app.screen.session.session_id == "29ccd257-68b1-427f-ae5f-6524b7cb6f20"


async def test_rejecting_updates_the_count(corpus_index_path, tmp_path):
    folder = _memory_folder(tmp_path)
    app = app_for(corpus_index_path, memory_dir=folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert app.pending_rules == 1
        assert "1 rule to review" in _status(app)

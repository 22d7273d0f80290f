"""A first run on a machine without agent logs: the demo is offered once, ever; the answer is
kept in the data dir (``app-state.json``); the search screen's panel keeps offering it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.app_state import AppState, app_state_path
from tui.demo import demo_roots_mapping
from tui.screens.confirm import ConfirmScreen
from tui.screens.search import SearchScreen
from tui_fixtures import SIZE, app_for, settle


def empty_app(tmp_path: Path):
    return app_for(
        tmp_path / "empty.sqlite3",
        only_roots({"claude-code": [tmp_path / "no-such-folder"]}),
        offer_demo=True,
        demo_opener=lambda: (Index(tmp_path / "demo.sqlite3"), only_roots(demo_roots_mapping())),
    )


@pytest.mark.parametrize("answer", ["escape", "enter"])
async def test_the_demo_is_offered_once_and_the_answer_remembered(tmp_path, answer):
    app = empty_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press(answer)  # "Not now", or "Open the demo sessions"
        await settle(pilot)
    assert AppState.load().demo_offered
    again = empty_app(tmp_path / "second-run")
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, SearchScreen)  # no question this time
        assert again.screen.has_class("-no-logs")  # the panel still offers the demo
        assert again.screen.query_one("#open-demo")


def test_the_state_file_keeps_what_it_does_not_know_and_survives_damage(tmp_path):
    path = app_state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"theme": "nord"}))
    state = AppState.load()
    assert not state.demo_offered
    state.demo_offered = True
    state.save()
    assert json.loads(path.read_text()) == {"theme": "nord", "demo_offered": True}
    path.write_text("{not json")
    assert AppState.load() == AppState()

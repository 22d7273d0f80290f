"""The line under the search box (tui.screens.search.info_line): the cases the other search
tests and the snapshots leave out, driven through the real app."""

from __future__ import annotations

import json
import re

import pytest

from tui_fixtures import SIZE, FakeHome, app_for, settle, type_query

SESSION_COUNT = re.compile(r"[\d,]+\+? sessions?\b")  # "31 sessions", "1–50 of 120 sessions"


@pytest.fixture
def home(tmp_path, monkeypatch) -> FakeHome:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    return FakeHome(tmp_path / "home")


def write_hook_episodes(folder, count: int) -> None:
    """``count`` episodic entries that all match the query ``hook``."""
    folder.mkdir(parents=True, exist_ok=True)
    episodes = [{"id": f"ep-{n:08x}", "ts": "2026-06-10T10:00:00Z", "type": "decision",
                 "summary": f"Hook lesson {n}", "detail": "kept", "tags": ["hook"], "importance": 5}
                for n in range(count)]
    (folder / "episodic.jsonl").write_text("".join(json.dumps(e) + "\n" for e in episodes), encoding="utf-8")


def info(app) -> str:
    return str(app.screen.query_one("#search-info").render())


async def test_memory_only_without_a_match_says_no_memory_hits(corpus_index_path, home):
    write_hook_episodes(home.memory_dir, 2)
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f", "ctrl+f")
        await type_query(pilot, "zzqqxxnotthere")
        shown = info(app)
        assert "memory only" in shown and shown.endswith("no memory hits")
        assert " · " not in shown  # no sessions searched: no session count after it


async def test_more_memory_hits_than_listed_says_how_many_are_shown(corpus_index_path, home):
    write_hook_episodes(home.memory_dir, 12)  # ten are listed above the session hits
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f")
        await type_query(pilot, "hook")
        assert re.search(r"10 of 12 in memory · [\d,–]+.* hits?\b", info(app))


async def test_an_unreadable_memory_folder_is_named_before_the_session_count(corpus_index_path, home, tmp_path):
    not_a_folder = tmp_path / "memory-file"
    not_a_folder.write_text("not a folder", encoding="utf-8")
    app = app_for(corpus_index_path, **{**home.app_options(), "memory_dir": not_a_folder})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f")
        await type_query(pilot, "hook")
        assert re.search(r"memory: .*Not a directory.* · [\d,–]+.* hits?\b", info(app))


async def test_clearing_the_query_drops_the_counts(corpus_index_path, home):
    write_hook_episodes(home.memory_dir, 2)
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f")
        await type_query(pilot, "hook")
        assert "2 in memory" in info(app)
        await type_query(pilot, "")
        assert info(app).rstrip().endswith("memory on")


async def test_one_per_session_counts_sessions(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "code")
        assert not SESSION_COUNT.search(info(app)) and "hits" in info(app)
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert "one per session on" in info(app)
        assert SESSION_COUNT.search(info(app)) and "hits" not in info(app)


async def test_a_narrow_screen_shortens_the_labels(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        assert "one per session off   memory off" in info(app)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert "1/session off  memory off" in info(app) and "one per session" not in info(app)

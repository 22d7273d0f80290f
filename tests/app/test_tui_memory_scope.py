"""The search box's memory scope (ctrl+f): memory hits from the app's memory folder, listed
above the session hits, with their details in the side pane, Enter opening them in F4."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from textual.widgets import DataTable, OptionList, TextArea

from indexer.memory import MemoryHit, MemoryStore
from tui.screens.memory import MemoryScreen
from tui.screens.search import SearchScreen
from tui.widgets.context_pane import ContextPane
from tui.widgets.result_list import ResultList
from tui_fixtures import SIZE, FakeHome, app_for, settle, type_query, write_sample_memory

EPISODE = "ep-1a2b3c4d"


@pytest.fixture
def home(tmp_path, monkeypatch) -> FakeHome:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    home = FakeHome(tmp_path / "home")
    write_sample_memory(home.memory_dir)
    return home


def memory_ids(app) -> list[str]:
    return [h.id for h in app.screen.query_one(ResultList).memory_hits]


def info(app) -> str:
    return str(app.screen.query_one("#search-info").render())


def pane_text(app) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.screen.query_one(ContextPane).query_one("#context-body").content)
    return console.export_text()


async def test_sessions_scope_leaves_memory_out(corpus_index_path, home):
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "誤刪")
        assert app.screen.request.scope == "sessions"
        assert memory_ids(app) == []
        assert "memory off" in info(app)


@pytest.mark.parametrize("query", ["誤刪設定檔", "設定", "rm"])
async def test_memory_scope_finds_the_episodic_entry(corpus_index_path, home, query):
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f")
        await type_query(pilot, query, keys=True)
        screen = app.screen
        assert isinstance(screen, SearchScreen) and screen.request.scope == "sessions+memory"
        assert EPISODE in memory_ids(app)
        assert "memory on" in info(app) and "in memory" in info(app)
        results = screen.query_one(ResultList)
        row = results.get_option_at_index(memory_ids(app).index(EPISODE)).prompt
        assert row.plain.startswith(f"memory · episodic · {EPISODE} · strength ")
        assert "AI 誤刪設定檔" in row.plain
        assert any(span.style for span in row.spans if query.lower() in row.plain[span.start:span.end].lower())


async def test_memory_hits_come_first_then_the_sessions(corpus_index_path, home):
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f")
        await type_query(pilot, "hook")
        results = app.screen.query_one(ResultList)
        assert memory_ids(app)[:1] and results.hits, "both memory and session hits expected"
        assert isinstance(results.current_item, MemoryHit)
        assert results.option_count == len(results.memory_hits) + len(results.hits)
        results.highlighted = len(results.memory_hits)  # the first session hit
        await settle(pilot)
        assert results.current_hit is results.hits[0]


async def test_memory_only_scope_has_no_session_hits(corpus_index_path, home):
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f", "ctrl+f")
        await type_query(pilot, "hook")
        assert app.screen.request.scope == "memory"
        assert memory_ids(app) and app.screen.query_one(ResultList).hits == []
        assert "memory only" in info(app) and "memory hits" in info(app)
        await pilot.press("ctrl+f")  # back to sessions only
        await settle(pilot)
        assert app.screen.request.scope == "sessions" and memory_ids(app) == []


async def test_a_memory_hit_shows_its_details_and_copies_its_id(corpus_index_path, home):
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f")
        await type_query(pilot, "誤刪")
        await pilot.press("down")
        await settle(pilot)
        text = pane_text(app)
        for expected in ("memory · episodic · ep-1a2b3c4d", "AI 誤刪設定檔", "settings.toml",
                         "建立 Hook 守門系統", "safety, hook", "~/src/claude_p/memory"):
            assert expected in text
        await pilot.press("ctrl+y")
        assert app.clipboard == EPISODE


async def test_enter_on_a_memory_hit_opens_it_in_the_memory_mode(corpus_index_path, home):
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f")
        await type_query(pilot, "誤刪")
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.current_mode == "memory"
        screen = app.screen
        assert isinstance(screen, MemoryScreen)
        assert screen.query_one("#memory-tabs").active == "episodic"
        table = screen.query_one("#episodic-table", DataTable)
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value == EPISODE


async def test_enter_on_a_fact_or_a_scratchpad_item_selects_it(corpus_index_path, home):
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f", "ctrl+f")
        await type_query(pilot, "設定")
        kinds = [h.kind for h in app.screen.query_one(ResultList).memory_hits]
        assert kinds == ["fact", "episodic", "scratchpad"]
        await pilot.press("down", "enter")  # the fact
        await settle(pilot)
        memory = app.screen
        assert memory.query_one("#memory-tabs").active == "fact"
        assert memory.query_one("#fact-editor", TextArea).cursor_location == (3, 0)
        await pilot.press("f2")
        await settle(pilot)
        await pilot.press("down", "end", "enter")  # F2: the box; ↓ the results; the scratchpad item (last row)
        await settle(pilot)
        assert memory.query_one("#memory-tabs").active == "scratchpad"
        items = memory.query_one("#scratch-items", OptionList)
        assert items.get_option_at_index(items.highlighted).id == "line-4"


async def test_the_tui_does_not_count_retrievals(corpus_index_path, home):
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f")
        await type_query(pilot, "誤刪")
        assert EPISODE in memory_ids(app)
    store = MemoryStore(home.memory_dir)
    assert not store.retrievals_path.exists()
    assert store.breakdown(EPISODE, app.context.aware_now()).retrieval_count == 0

"""The search screen's preview (context pane), typing on the results, and "this project"."""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets import Input, Static

from tui.screens.search import SearchScreen
from tui.screens.transcript import TranscriptScreen
from tui.widgets.context_pane import ContextPane
from tui.widgets.result_list import ResultList
from tui_fixtures import SIZE, app_for, settle, type_query


def hit_row(pane: ContextPane) -> int:
    """The line of the pane's content that holds the hit's ``▶`` label, as drawn."""
    body = pane.query_one("#context-body", Static)
    strips = body.render_lines(Region(0, 0, body.size.width, body.size.height))
    return next(i for i, strip in enumerate(strips) if "▶" in strip.text)


def in_view(pane: ContextPane, row: int) -> bool:
    """The hit's label is on screen, and so is its text (or at least half a pane of it)."""
    height = pane.scrollable_content_region.height
    shown_to = pane.scroll_y + height
    return pane.scroll_y <= row < shown_to and row + min(pane.hit_height, height // 2) <= shown_to


async def test_the_preview_keeps_the_hit_in_view_below_long_tool_output(corpus_index_path):
    """The issue's repro: lmstudio, ↓, +: the tool output before the hit is longer than the pane."""
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "lmstudio")
        await pilot.press("down")
        await settle(pilot)
        pane = app.screen.query_one(ContextPane)
        row = hit_row(pane)
        assert row == pane.hit_line
        assert row > pane.scrollable_content_region.height, "the repro no longer puts the hit below the fold"
        assert pane.scroll_y > 0 and in_view(pane, row)
        await pilot.press("right")
        await settle(pilot)
        assert app.screen.context_size == 3
        row = hit_row(pane)
        assert row == pane.hit_line and in_view(pane, row)


async def test_a_hit_near_the_top_keeps_the_header_in_view(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, '"code organization"')
        await pilot.press("down")
        await settle(pilot)
        pane = app.screen.query_one(ContextPane)
        assert in_view(pane, hit_row(pane))
        assert pane.scroll_y == 0


async def test_the_preview_takes_focus_and_scrolls_from_the_keyboard(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "lmstudio")
        await pilot.press("down")
        await settle(pilot)
        pane = app.screen.query_one(ContextPane)
        at_hit = pane.scroll_y
        await pilot.press("tab")
        assert app.focused is pane
        await pilot.press("home")
        await settle(pilot)
        assert pane.scroll_y == 0
        await pilot.press("down", "down")
        await settle(pilot)
        assert pane.scroll_y == 2
        await pilot.press("pagedown")
        await settle(pilot)
        assert pane.scroll_y > 2
        await pilot.press("enter")  # back to the hit
        await settle(pilot)
        assert pane.scroll_y == at_hit
        await pilot.press("right")  # the context keys work from the pane too
        await settle(pilot)
        assert app.screen.context_size == 3 and in_view(pane, hit_row(pane))
        assert app.focused is pane


async def test_typing_on_the_results_goes_to_the_search_box(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "tmux")
        await pilot.press("down")
        assert isinstance(app.focused, ResultList)
        await pilot.press(*" theme")
        await settle(pilot)
        box = app.screen.query_one("#query", Input)
        assert app.focused is box
        assert box.value == "tmux theme"
        assert app.screen.request.text == "tmux theme"


async def test_typing_after_returning_from_a_transcript_is_not_lost(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "tmux")
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, SearchScreen)
        await pilot.press("backspace", *"x")  # backspace is no printable key: nothing happens
        await settle(pilot)
        assert app.screen.query_one("#query", Input).value == "tmuxx"


async def test_bound_keys_on_the_results_still_act(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "tmux")
        await pilot.press("down", "ctrl+y")  # copies the id, types nothing
        await settle(pilot)
        hit = app.screen.query_one(ResultList).current_hit
        assert app.clipboard == hit.session.session_id
        assert app.screen.query_one("#query", Input).value == "tmux"
        assert isinstance(app.focused, ResultList)

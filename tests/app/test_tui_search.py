"""The search screen, driven through the real app on the fixture-corpus index."""

from __future__ import annotations

from tui.screens.search import PAGE_SIZE, SearchScreen
from tui.screens.transcript import TranscriptScreen
from tui.widgets.context_pane import ContextPane
from tui.widgets.message_list import MessageList
from tui.widgets.result_list import ResultList
from tui_fixtures import SIZE, app_for, settle, type_query

CLAUDE_P_SESSION = "29ccd257-68b1-427f-ae5f-6524b7cb6f20"


async def test_typing_a_query_shows_the_expected_hit(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, '"code organization"', keys=True)
        hits = app.screen.query_one(ResultList).hits
        assert hits, "no hits for a phrase that is in the corpus"
        assert hits[0].session.session_id == CLAUDE_P_SESSION
        assert hits[0].message.role == "user"
        assert "code organization" in hits[0].snippet[slice(*hits[0].spans[0])].lower()


async def test_two_character_cjk_query(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "更新")
        hits = app.screen.query_one(ResultList).hits
        assert any(h.session.session_id.startswith("5c0375b4") and h.session.project_name == "Demo" for h in hits)


async def test_a_query_error_is_shown_inline(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "x")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        assert screen.error and "too short" in screen.error
        assert "too short" in str(screen.query_one("#search-info").render())
        assert screen.query_one(ResultList).hits == []


async def test_no_hits_says_so(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "zzqqxxnotthere")
        assert "no hits" in str(app.screen.query_one("#search-info").render())


async def test_newer_keystrokes_win(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"tmux")
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"theme")
        await settle(pilot)
        screen = app.screen
        assert screen.request.text == "theme"
        assert screen.result is not None and screen.result.query.raw.startswith("theme")


async def test_right_widens_the_context(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, '"code organization"')
        await pilot.press("down")
        await settle(pilot)
        pane = app.screen.query_one(ContextPane)
        before = len(pane.shown_ids)
        assert app.screen.context_size == 2
        await pilot.press("right", "right")
        await settle(pilot)
        assert app.screen.context_size == 4
        assert len(pane.shown_ids) > before
        await pilot.press("left")
        await settle(pilot)
        assert app.screen.context_size == 3


async def test_enter_opens_the_transcript_at_the_hit(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "tmux")
        hit = app.screen.query_one(ResultList).hits[0]
        await pilot.press("enter")  # from the search box: focus the results
        await pilot.press("enter")  # on a hit: open it
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        messages = app.screen.query_one(MessageList)
        assert messages.current_message is not None
        assert messages.current_message.id == hit.message.id
        assert messages.focus_id == hit.message.id
        await pilot.press("escape")
        assert isinstance(app.screen, SearchScreen)


async def test_agent_toggle_filters_the_results(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "error")
        assert len({h.session.agent for h in app.screen.query_one(ResultList).hits}) > 1
        await pilot.press("ctrl+t", "ctrl+t")  # all → claude-code → codex
        await settle(pilot)
        assert app.screen.request.agent == "codex"
        hits = app.screen.query_one(ResultList).hits
        assert hits and {h.session.agent for h in hits} == {"codex"}
        assert "agent codex" in str(app.screen.query_one("#search-info").render())


async def test_project_and_one_per_session_toggles(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "code")
        await pilot.press("ctrl+o")
        await settle(pilot)
        hits = app.screen.query_one(ResultList).hits
        assert hits and {h.session.project_name for h in hits} == {"claude_p"}
        await pilot.press("ctrl+o", "ctrl+g")
        await settle(pilot)
        hits = app.screen.query_one(ResultList).hits
        sessions = [h.session.id for h in hits]
        assert len(sessions) == len(set(sessions)) > 1


async def test_results_are_paged(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "the")
        screen = app.screen
        assert screen.result.total > PAGE_SIZE
        first_page = [h.message.id for h in screen.query_one(ResultList).hits]
        assert len(first_page) == PAGE_SIZE
        await pilot.press("down", "ctrl+pagedown")
        await settle(pilot)
        assert screen.request.page == 1
        second_page = [h.message.id for h in screen.query_one(ResultList).hits]
        assert second_page and not set(first_page) & set(second_page)
        assert "51–" in str(screen.query_one("#search-info").render())

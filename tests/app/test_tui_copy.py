"""`y` copies the session id and `r` the resume command, from a hit, a tree node or a transcript."""

from __future__ import annotations

from indexer import resume_command
from tui.widgets.session_tree import SessionTree
from tui_fixtures import SIZE, app_for, settle, type_query

CLAUDE_P = "29ccd257-68b1-427f-ae5f-6524b7cb6f20"
CLAUDE_P_RESUME = f"cd /src/experiments/claude_p && claude --resume {CLAUDE_P}"


async def test_copy_from_a_hit(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, '"code organization"')
        await pilot.press("down", "ctrl+y")
        assert app.clipboard == CLAUDE_P
        await pilot.press("ctrl+k")
        assert app.clipboard == CLAUDE_P_RESUME
        await pilot.pause()
        assert any("resume command" in (n.title or "") for n in app._notifications)


async def test_copy_from_a_subagent_hit_resumes_the_parent(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, '"code organization" session:agent-a2271d1')
        await pilot.press("down", "ctrl+y")
        assert app.clipboard == "agent-a2271d1"
        await pilot.press("ctrl+k")
        assert app.clipboard == CLAUDE_P_RESUME


async def test_copy_from_a_tree_node(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        await pilot.press("down", "down", "enter")  # pi
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        await pilot.press("down")
        session = tree.current_session
        assert session is not None and session.agent == "pi"
        await pilot.press("ctrl+y")
        assert app.clipboard == session.session_id
        await pilot.press("ctrl+k")
        assert app.clipboard == resume_command(session) and app.clipboard.startswith("cd ")


async def test_copy_from_a_transcript(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(app.context.index.session(CLAUDE_P))
        await settle(pilot)
        await pilot.press("ctrl+y")
        assert app.clipboard == CLAUDE_P
        await pilot.press("ctrl+k")
        assert app.clipboard == CLAUDE_P_RESUME

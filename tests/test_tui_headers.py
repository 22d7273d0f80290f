"""What the app shows in its one-line and two-line places: the sessions filter and its details
pane, the transcript header under a long title, and a long note under the search box."""

from __future__ import annotations

from textual.widgets import Input, Static

from test_tui_sessions import _walk, open_sessions
from tui.screens.transcript import TranscriptScreen
from tui.widgets.session_details import SessionDetails
from tui_fixtures import SIZE, app_for, settle, type_query

WORKTREE_PARENT = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
LONG_TITLE_SESSION = "29ccd257-68b1-427f-ae5f-6524b7cb6f20"


def drawn(widget: Static) -> list[str]:
    """The widget's lines as drawn on screen (padding stripped)."""
    return [widget.render_line(y).text.strip() for y in range(widget.size.height)]


def details_text(app) -> str:
    return "\n".join(drawn(app.screen.query_one(SessionDetails).query_one("#session-details-body", Static)))


# --- 6: the sessions filter matches subagents' titles; the details pane follows ------------------


async def test_the_filter_finds_a_subagent_by_its_title_under_its_parent(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        tree = await open_sessions(pilot)
        app.screen.query_one("#session-filter", Input).value = "Yegge"
        await settle(pilot)
        nodes = [n for n in _walk(tree.root) if n.data and n.data.session]
        assert [n.data.session.session_id for n in nodes] == [WORKTREE_PARENT, "agent-ab1e6e141221a29ab"]
        parent, subagent = nodes
        assert subagent.parent is parent and parent.is_expanded
        assert "Yegge" in str(subagent.label)


async def test_the_details_pane_drops_a_stale_no_match_message(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_sessions(pilot)
        box = app.screen.query_one("#session-filter", Input)
        box.value = "zzqqxx"
        await settle(pilot)
        assert "No session title, id or project contains “zzqqxx”" in " ".join(details_text(app).split())
        box.value = "Explore task"
        await settle(pilot)
        assert "No session" not in details_text(app)
        box.value = ""
        await settle(pilot)
        assert "No session" not in details_text(app)


# --- 7: the transcript header keeps its metadata line under a long title ---------------------


async def test_the_transcript_header_keeps_its_metadata_under_a_long_title(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=(80, 24)) as pilot:
        session = app.context.index.session(LONG_TITLE_SESSION)
        assert len(session.title) > 80
        app.open_transcript(session)
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        title, meta = drawn(app.screen.query_one("#transcript-header", Static))
        assert title.startswith("Use the Explore task") and title.endswith("…")
        assert meta.startswith("claude-code · claude_p · 29ccd257")


# --- friction: a long note under the search box is not cut off ------------------------------


async def test_a_long_query_error_fits_at_160_columns(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await type_query(pilot, "x")
        error = app.screen.error
        assert error and len(error) > 60
        shown = " ".join(drawn(app.screen.query_one("#search-info", Static)))
        assert " ".join(error.split()) in " ".join(shown.split())

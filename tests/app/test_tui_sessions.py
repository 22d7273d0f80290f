"""The sessions tree: lazy levels, subagents under their parent, the filter box."""

from __future__ import annotations

from textual.widgets import Input

from tui.screens.sessions import SessionsScreen
from tui.screens.transcript import TranscriptScreen
from tui.widgets.session_tree import SessionTree
from tui_fixtures import SIZE, app_for, settle


def child_named(node, text):
    return next(c for c in node.children if text in str(c.label))


async def open_sessions(pilot) -> SessionTree:
    await pilot.press("f3")
    await settle(pilot)
    assert isinstance(pilot.app.screen, SessionsScreen)
    return pilot.app.screen.query_one(SessionTree)


async def test_tree_loads_each_level_only_when_expanded(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        tree = await open_sessions(pilot)
        agents = {str(n.label).split()[0]: n for n in tree.root.children}
        assert set(agents) == {"claude-code", "codex", "pi"}
        claude = agents["claude-code"]
        assert len(claude.children) == 0 and not claude.data.loaded and claude.allow_expand

        claude.expand()
        await settle(pilot)
        project = child_named(claude, "claude_p")
        assert claude.data.loaded
        assert len(project.children) == 0 and not project.data.loaded  # one level at a time

        project.expand()
        await settle(pilot)
        day = project.children[0]
        assert day.data.kind == "day" and len(day.children) == 0
        day.expand()
        await settle(pilot)
        session_node = day.children[0]
        assert session_node.data.session.session_id.startswith("29ccd257")
        assert "4 msgs" in str(session_node.label)

        # Its subagent is nested under it and read only on expand.
        assert session_node.allow_expand and len(session_node.children) == 0
        session_node.expand()
        await settle(pilot)
        assert [c.data.session.session_id for c in session_node.children] == ["agent-a2271d1"]


async def test_enter_on_a_session_opens_its_transcript(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        tree = await open_sessions(pilot)
        await pilot.press("down", "enter")  # cursor to codex, expand
        await settle(pilot)
        await pilot.press("down", "enter")  # first codex project
        await settle(pilot)
        await pilot.press("down", "enter")  # its first day
        await settle(pilot)
        await pilot.press("down")
        assert tree.current_session is not None and tree.current_session.agent == "codex"
        chosen = tree.current_session
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert app.screen.session.id == chosen.id


async def test_filter_box_narrows_the_tree(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        tree = await open_sessions(pilot)
        box = app.screen.query_one("#session-filter", Input)
        box.value = "Explore task"
        await settle(pilot)
        sessions = [n.data.session for n in _walk(tree.root) if n.data and n.data.session]
        assert [s.session_id[:8] for s in sessions] == ["29ccd257"]
        assert [str(n.label).split()[0] for n in tree.root.children] == ["claude-code"]
        box.value = ""
        await settle(pilot)
        assert len(tree.root.children) == 3


def _walk(node):
    for child in node.children:
        yield child
        yield from _walk(child)

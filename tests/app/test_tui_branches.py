"""The app shows a Pi fork as a session of its own, linked to where it branched from, and
marks what the parsers marked (an error, an abandoned branch) in the transcript."""

from __future__ import annotations

import io

from rich.console import Console
from textual.widgets import Input, Static

from indexer import Index
from tui.display.message_render import MessageStyles, render_message
from tui.screens.sessions import SessionsScreen
from tui.widgets.session_tree import SessionTree
from tui_fixtures import SIZE, app_for, settle

PI_FORK = "ffae836b-9420-4060-ac13-7745215f90ff"  # the corpus's biggest session, a fork


def as_text(*renderables) -> str:
    console = Console(width=160, record=True, file=io.StringIO())
    for renderable in renderables:
        console.print(renderable)
    return console.export_text()


async def test_a_fork_is_listed_and_its_details_name_its_origin(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        app.screen.query_one("#session-filter", Input).value = "ffae836b"
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        nodes = [n for n in _walk(tree.root) if n.data and n.data.session]
        assert [n.data.session.session_id for n in nodes] == [PI_FORK]
        tree.move_cursor(nodes[0])
        await settle(pilot)
        details = as_text(*app.screen.query_one("#session-details-body", Static).content.renderables)
        assert any(line.split() == ["branched", "from", "d97339c6-6c10-4827-846b-9ff1d9c3dc37"]
                   for line in details.splitlines())
        assert "subagent of" not in details


def test_an_error_and_a_mark_show_in_the_transcript(corpus_index_path):
    with Index(corpus_index_path) as index:
        error = next(m for m in index.messages(index.session(PI_FORK)) if m.kind == "error")
    styles = MessageStyles(*[""] * 7)
    assert as_text(render_message(error, styles)).startswith("⚠ error")
    marked = error._replace(mark="abandoned branch")
    assert "· abandoned branch" in as_text(render_message(marked, styles)).splitlines()[0]


def _walk(node):
    for child in node.children:
        yield child
        yield from _walk(child)

"""The app's line view (issue 36): from a file's sessions, `b` shows each line with the session
whose edit last wrote it; enter opens that session's transcript at the edit."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from indexer import Index, only_roots
from tui.screens.blame import BlameScreen
from tui.screens.file_sessions import FileSessionsScreen
from tui.screens.transcript import TranscriptScreen
from tui.widgets.message_list import MessageList

from attribution_histories import play
from tui_fixtures import SIZE, app_for, settle

SEED = 1  # a history with git, two agents, a person's edits between


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    base = tmp_path_factory.mktemp("blame-app")
    found = play(base, SEED, git=True)
    roots = only_roots({agent: [path] for agent, path in found.logs.items() if path.exists()})
    db = base / "index.sqlite3"
    with Index(db) as index:
        index.update(roots, now=time.time())
    return found, db, roots


def _app(history):
    found, db, roots = history
    return app_for(db, roots, path_label=lambda path: "~/" + Path(path).name)


def _editing_call(app, found):
    index = app.context.index
    for session in index.sessions(limit=None):
        for message in index.messages(session):
            if message.kind == "tool_call" and message.tool_name in ("Edit", "Write", "apply_patch"):
                return session, message
    raise AssertionError("no edit in the history's sessions")


async def _to_blame(pilot) -> None:
    app = pilot.app
    found = app._history
    session, call = _editing_call(app, found)
    app.open_transcript(session, call.id)
    await settle(pilot)
    await pilot.press("enter")  # the sessions that touched the call's file
    await settle(pilot)
    await pilot.press("b")  # who wrote each of its lines
    await settle(pilot)


async def test_b_on_a_file_shows_its_lines_and_enter_opens_the_edit(history):
    found = history[0]
    app = _app(history)
    app._history = found
    async with app.run_test(size=SIZE) as pilot:
        await _to_blame(pilot)
        screen = app.screen
        assert isinstance(screen, BlameScreen) and screen.path == str(found.file)
        lines = list(screen.lines.values())
        assert len(lines) == len(found.truth) and any(line.session for line in lines)
        options = screen.query_one("#blame-lines")
        line = lines[options.highlighted]
        assert line.session is not None  # the first line some session wrote is highlighted
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen) and app.screen.session.id == line.session.id
        messages = app.screen.query_one(MessageList)
        assert messages.messages[messages.current_index].id == line.message.id
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BlameScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, FileSessionsScreen)


async def test_a_file_that_is_gone_says_so(history, tmp_path):
    app = _app(history)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(BlameScreen(app.context, str(tmp_path / "gone.py")))
        await settle(pilot)
        text = str(app.screen.query_one("#blame-lines").get_option_at_index(0).prompt)
        assert "does not exist" in text


async def test_the_default_folder_label_shows_the_files_folder(history):
    """The app's own path label (not the tests' stand-in) is given the file's folder as a path:
    it was given a string, and the screen failed to open for any file in a folder."""
    found, db, roots = history
    app = app_for(db, roots)  # no path_label: the app's default, as a person runs it
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(BlameScreen(app.context, str(found.file)))
        await settle(pilot)
        assert isinstance(app.screen, BlameScreen)
        title = str(app.screen.query_one("#blame-title").render())
        assert found.file.name in title and str(found.file.parent.name) in title


def test_blame_screen(history, snap_compare):
    app = _app(history)
    app._history = history[0]
    assert snap_compare(app, terminal_size=SIZE, run_before=_to_blame)

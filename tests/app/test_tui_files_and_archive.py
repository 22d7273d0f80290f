"""The app's per-file view (enter on a tool call in a transcript lists every session that touched
its file) and the "archived copy only" mark in the sessions tree (issue 17)."""

from __future__ import annotations

import pytest

from indexer import Index, only_roots
from tui.screens.file_sessions import FileSessionsScreen
from tui.screens.transcript import TranscriptScreen
from tui.widgets.message_list import MessageList

from agent_logs import claude_session
from conftest import FIXED_NOW
from tui_fixtures import FILE_STATES, SIZE, _file_sessions, app_for, app_for_state, settle

EDITING_SESSION = "pi:d703a1a9-1b7b-4fb1-b512-c9738b1fe617"  # edits packages/coding-agent/src/main.ts
READING_SESSION = "ffae836b-9420-4060-ac13-7745215f90ff"  # reads it later
MAIN_TS = "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/main.ts"


async def test_enter_on_a_tool_call_lists_the_sessions_that_touched_its_file(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await _file_sessions(pilot)
        dialog = app.screen
        assert isinstance(dialog, FileSessionsScreen) and dialog.paths == [MAIN_TS]
        listed = list(dialog.sessions.values())
        assert [s.session_id for s in listed] == [READING_SESSION, EDITING_SESSION.split(":")[1]]  # newest first
        await pilot.press("enter")  # the first session: the one that read it later
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen) and app.screen.session.session_id == READING_SESSION
        assert app.screen.query_one(MessageList).needle == "main.ts"  # found in its transcript
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen) and app.screen.session.session_id == EDITING_SESSION.split(":")[1]


async def test_enter_on_a_call_that_touched_no_file_expands_it(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        index = app.context.index
        session = index.session(EDITING_SESSION)
        call = next(m for m in index.messages(session) if m.kind == "tool_call" and m.tool_name == "bash"
                    and not m.text.startswith(("[bash] cat", "[bash] rm", "[bash] mv", "[bash] cp")))
        app.open_transcript(session, call.id)
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen) and messages.current_index in messages.expanded


@pytest.mark.parametrize("state", FILE_STATES, ids=[s.name for s in FILE_STATES])
def test_screen(state, snap_compare, corpus_index_path, tmp_path):
    app = app_for_state(state, corpus_index_path, tmp_path)
    assert snap_compare(app, terminal_size=state.size, run_before=state.run_before)


async def test_the_tree_marks_a_session_with_only_its_archived_copy_left(tmp_path):
    from tui.widgets.session_tree import SessionTree

    root = tmp_path / "logs"
    log = claude_session(root, "s-gone", "demo", ["a session the agent deleted", "answer"])
    claude_session(root, "s-kept", "demo", ["a session still there", "answer"], day=2)
    roots = only_roots({"claude-code": [root]})
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW, archive=True)
        log.unlink()
        index.update(roots, now=FIXED_NOW, archive=True)
    app = app_for(tmp_path / "i.sqlite3", roots, project_name="demo", project_scope=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        labels = {}
        nodes = [tree.root]
        while nodes:  # open every branch: the tree fills lazily
            node = nodes.pop()
            node.expand()
            await settle(pilot)
            labels[str(node.label)] = node
            nodes.extend(node.children)
        gone = [label for label in labels if "a session the agent deleted" in label]
        kept = [label for label in labels if "a session still there" in label]
        assert len(gone) == 1 and gone[0].endswith("archived copy only")
        assert len(kept) == 1 and "archived" not in kept[0]

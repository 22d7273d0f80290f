"""What the app shows in its one-line and two-line places: the sessions filter and its details
pane, the transcript header under a long title, and a long note under the search box."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from textual.widgets import Input, Static

from conftest import FIXED_NOW
from indexer import Index, Message, SourceRoots, only_roots

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


# --- friction: a session is titled by its first real prompt, not a slash command -------------


def write_commands_then_prompt(root: Path) -> SourceRoots:
    folder = root / "-src-app"
    folder.mkdir(parents=True)
    lines = []
    for n, content in enumerate(["<command-name>/clear</command-name>\n<command-args></command-args>",
                                 "<command-name>/mode</command-name><command-args>plan</command-args>",
                                 "Fix the flaky login test", "/init"]):
        lines.append(json.dumps({"type": "user", "uuid": f"u{n}", "sessionId": "s-cmd", "cwd": "/src/app",
                                 "timestamp": f"2026-06-01T10:0{n}:00Z",
                                 "message": {"role": "user", "content": content}}))
    (folder / "s-cmd.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return only_roots({"claude-code": [root]})


async def test_sessions_are_titled_by_their_first_real_prompt(tmp_path):
    roots = write_commands_then_prompt(tmp_path / "logs")
    index = Index(tmp_path / "index.sqlite3")
    index.update(roots, now=FIXED_NOW)
    index.close()
    app = app_for(tmp_path / "index.sqlite3", roots)
    async with app.run_test(size=SIZE) as pilot:
        tree = await open_sessions(pilot)
        node = tree.root
        for _ in range(3):  # agent, project, day
            node = node.children[0]
            node.expand()
            await settle(pilot)
        label = str(node.children[0].label)
        assert label.startswith("10:00  Fix the flaky login test") and "/clear" not in label
        tree.move_cursor(node.children[0])
        await pilot.press("enter")
        await settle(pilot)
        title, _meta = drawn(app.screen.query_one("#transcript-header", Static))
        assert title == "Fix the flaky login test"


def test_an_untitled_session_falls_back_to_its_first_real_prompt(tmp_path):
    from tui.widgets.session_tree import _first_prompt

    class Stub:
        def messages(self, session, limit=20):
            return [Message(i, 1, i, "user", "text", None, None, text)
                    for i, text in enumerate(["/clear", "Tidy the README", "/init"])]

    assert _first_prompt(Stub(), SimpleNamespace(title=None)) == "Tidy the README"

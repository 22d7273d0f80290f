"""The transcript view: long sessions, tool calls, find, and untrusted text shown literally."""

from __future__ import annotations

from rich.console import Console

from indexer import Index
from tui.display.message_render import render_message
from tui.screens.transcript import TranscriptScreen
from tui.widgets.context_pane import ContextPane
from tui.widgets.message_list import MessageList
from tui.widgets.result_list import ResultList
from tui_fixtures import SIZE, app_for, settle, type_query, write_markup_log

LONG_PI_SESSION = "pi:ffae836b-9420-4060-ac13-7745215f90ff"


def screen_text(widget) -> str:
    """What a widget shows, as plain text, line by line."""
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


async def test_a_long_session_opens_fast_at_a_late_message(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        session = app.context.index.session(LONG_PI_SESSION)
        target = app.context.index.messages(session)[1100]
        app.open_transcript(session, target.id)
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        assert len(messages.messages) == session.message_count > 1000
        assert messages.option_count < 200  # a window, not a widget per message
        assert messages.current_message.id == target.id
        await pilot.press("end")
        await settle(pilot)
        assert messages.current_message.id == messages.messages[-1].id
        await pilot.press("home")
        await settle(pilot)
        assert messages.current_index == 0


async def test_find_jumps_between_matches(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(app.context.index.session(LONG_PI_SESSION))
        await settle(pilot)
        await pilot.press(*"AgentSession", "enter")  # typing on the messages finds
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        assert len(messages.matches) > 3
        first = messages.current_index
        assert first == messages.matches[0]
        assert "AgentSession".lower() in messages.current_message.text.lower()
        await pilot.press("escape", "ctrl+n")
        assert messages.current_index == messages.matches[1]
        await pilot.press("ctrl+u")
        assert messages.current_index == first
        assert "match 1 of" in str(app.screen.query_one("#find-info").render())


async def test_tool_calls_expand_to_their_arguments(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        session = app.context.index.session(LONG_PI_SESSION)
        call = next(m for m in app.context.index.messages(session, limit=10) if m.kind == "tool_call")
        app.open_transcript(session, call.id)
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        assert '"path"' not in screen_text(messages).split("\n")[0]
        collapsed = screen_text(messages)
        await pilot.press("space")  # enter on a call that touched a file lists its sessions
        await pilot.pause()
        expanded = screen_text(messages)
        assert '"path"' in expanded and '"path"' not in collapsed.split("read")[1].split("\n")[0]


def test_code_fences_are_highlighted_and_thinking_collapsed(corpus_index):
    from tui.display.message_render import MessageStyles
    from rich.style import Style
    from rich.syntax import Syntax

    plain = Style()
    styles = MessageStyles(plain, plain, plain, plain, plain, plain, plain)
    from indexer import Message

    code = Message(1, 1, 0, "assistant", "text", None, 0.0, "Look:\n```python\nprint('hi')\n```\ndone")
    group = render_message(code, styles)
    assert any(isinstance(r, Syntax) for r in group.renderables)
    thinking = Message(2, 1, 1, "assistant", "thinking", None, 0.0, "secret reasoning " * 50)
    console = Console(width=100, record=True)
    console.print(render_message(thinking, styles))
    assert "secret reasoning" not in console.export_text()
    console.print(render_message(thinking, styles, expanded=True))
    assert "secret reasoning" in console.export_text()


async def test_markup_and_escapes_in_a_log_are_shown_literally(tmp_path):
    roots = write_markup_log(tmp_path / "logs")
    index = Index(tmp_path / "index.sqlite3")
    index.update(roots)
    index.close()
    app = app_for(tmp_path / "index.sqlite3", roots)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "markup")
        results = app.screen.query_one(ResultList)
        assert len(results.hits) == 1
        row = screen_text(results)
        assert "[bold red]not marku" in row and "\x1b" not in row  # the row is cut to fit
        await pilot.press("down")
        await settle(pilot)
        context = screen_text(app.screen.query_one(ContextPane).query_one("#context-body"))
        assert "[bold red]not markup[/]" in context
        assert "\x1b" not in context and "ESC" in context
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        shown = screen_text(app.screen.query_one(MessageList))
        assert "[bold red]not markup[/]" in shown
        assert "\x1b" not in shown and "ESC" in shown


async def test_find_uses_the_whole_query(corpus_index_path):
    """Issue 33 item 14: a hit opened from ``theme watcher`` finds both words (not just
    ``theme``), and a find typed with several words wants them all in one message."""
    from tui.display.message_render import message_matches

    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "theme watcher")
        await pilot.press("down", "enter")
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        assert isinstance(app.screen, TranscriptScreen) and messages.needle == "theme watcher"
        assert messages.matches and messages.current_index in messages.matches
        for i in messages.matches:
            text = messages.messages[i].text.lower() + (messages.messages[i].detail or "").lower()
            assert "theme" in text and "watcher" in text
        only_theme = [m for m in messages.messages if message_matches(m, "theme") and not message_matches(m, "watcher")]
        assert only_theme and not any(message_matches(m, messages.needle) for m in only_theme)
        await pilot.press("slash", "ctrl+a", "ctrl+k", *'"theme watcher"', "enter")
        await settle(pilot)
        assert messages.needle == '"theme watcher"'
        assert all("theme watcher" in (messages.messages[i].text + (messages.messages[i].detail or "")).lower()
                   for i in messages.matches)

"""Live updates: a line appended to a log shows in the open app within seconds, with the
cursor, the scroll and the focus left where they were; "live" in the status line; sessions
still being written marked "active"."""

from __future__ import annotations

import io
import json
import os
import time
from datetime import datetime, timezone
from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from indexer import Index, only_roots
from tui.screens.sessions import SessionsScreen
from tui.screens.transcript import TranscriptScreen
from tui.widgets.message_list import MessageList
from tui.widgets.result_list import ResultList
from tui.widgets.session_tree import SessionTree

from agent_logs import claude_session
from tui_fixtures import SIZE, app_for, settle, type_query

WAIT_SECONDS = 10.0  # bounded: a live update normally lands well within 2 s
# The app's clock: half a minute after s-live's last message (10:03), so it is active; s-old's
# last message was at 08:01, so it is not, whatever its file's time says.
LIVE_NOW = datetime(2026, 3, 2, 10, 3, 30, tzinfo=timezone.utc).timestamp()


def log_tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two sessions of one project on one day; ``s-live`` is still being written."""
    root = tmp_path / "claude"
    claude_session(root, "s-old", "proj", ["old question about parsers", "old answer"], day=2, hour=8)
    live = claude_session(root, "s-live", "proj", ["live question about watchers", "first answer",
                                                    "second question", "second answer"], day=2)
    os.utime(root / "-w-proj" / "s-old.jsonl", (LIVE_NOW - 5, LIVE_NOW - 5))  # a file time is not activity
    db = tmp_path / "index.sqlite3"
    with Index(db) as index:
        index.update(only_roots({"claude-code": [root]}), now=LIVE_NOW)  # indexed on the app's clock
    return root, live, db


def append_reply(log: Path, n: int, text: str, usage: dict | None = None) -> None:
    line = {"type": "assistant", "uuid": f"s-live-new-{n}", "sessionId": "s-live", "cwd": "/w/proj",
            "timestamp": f"2026-03-02T10:03:{20 + 3 * n:02d}Z",  # after the last line, before LIVE_NOW
            "message": {"id": f"msg_new_{n}", "role": "assistant", "model": "claude-x",
                        "content": [{"type": "text", "text": text}]}}
    if usage:
        line["message"]["usage"] = usage
    with log.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")


async def wait_until(pilot, check) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not check():
        assert time.monotonic() < deadline, "the live update did not arrive"
        await pilot.pause(0.05)


def live_app(tmp_path: Path, root: Path, db: Path):
    return app_for(db, only_roots({"claude-code": [root]}), live=True, now=lambda: LIVE_NOW)


def status_text(app) -> str:
    return str(app.screen.query_one("#status-text", Static).render())


async def open_day(pilot, labels: tuple[str, ...] = ("claude-code", "proj", "2026-03-02")) -> SessionTree:
    """Expand agent, project and day; the cursor ends on the day."""
    await pilot.press("f3")
    await settle(pilot)
    tree = pilot.app.screen.query_one(SessionTree)
    node = tree.root
    for label in labels:
        node = next(c for c in node.children if str(c.label).startswith(label))
        node.expand()
        await settle(pilot)
        tree.move_cursor(node)
        await settle(pilot)
    return tree


async def test_new_lines_show_in_the_tree_without_moving_the_cursor(tmp_path):
    root, live, db = log_tree(tmp_path)
    app = live_app(tmp_path, root, db)
    async with app.run_test(size=SIZE) as pilot:
        tree = await open_day(pilot)
        day = tree.cursor_node
        sessions = {n.data.session.session_id: n for n in day.children}
        old, growing = sessions["s-old"], sessions["s-live"]
        assert "active" in str(growing.label) and "active" not in str(old.label)
        tree.move_cursor(old)
        tree.focus()
        await settle(pilot)
        line, scroll, focused = tree.cursor_line, tree.scroll_offset, app.focused
        assert "4 msgs" in str(growing.label)
        assert status_text(app).endswith("live")

        append_reply(live, 1, "a fresh line from the agent")
        await wait_until(pilot, lambda: "5 msgs" in str(growing.label))
        await settle(pilot)
        assert tree.cursor_node is old and tree.cursor_line == line
        assert tree.scroll_offset == scroll and app.focused is focused
        assert isinstance(app.screen, SessionsScreen)


async def test_an_open_transcript_at_its_end_follows_new_lines_and_one_scrolled_up_stays(tmp_path):
    root, live, db = log_tree(tmp_path)
    app = live_app(tmp_path, root, db)
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(app.context.index.session("s-live"))
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        messages = app.screen.query_one(MessageList)
        await pilot.press("end")
        await settle(pilot)
        assert messages.current_index == 3
        assert "active" in str(app.screen.query_one("#transcript-header", Static).render())

        append_reply(live, 1, "the agent keeps writing")
        await wait_until(pilot, lambda: len(messages.messages) == 5)
        await settle(pilot)
        assert messages.current_index == 4 and messages.current_message.text == "the agent keeps writing"
        assert "5 messages" in str(app.screen.query_one("#transcript-header", Static).render())

        await pilot.press("home")
        await settle(pilot)
        append_reply(live, 2, "and writes more")
        await wait_until(pilot, lambda: len(messages.messages) == 6)
        await settle(pilot)
        assert messages.current_index == 0 and messages.has_focus  # scrolled up: no jump


async def test_search_results_gain_the_new_line_and_keep_the_cursor(tmp_path):
    root, live, db = log_tree(tmp_path)
    app = live_app(tmp_path, root, db)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "question")
        await settle(pilot)
        results = app.screen.query_one(ResultList)
        results.focus()
        results.highlighted = 1
        await settle(pilot)
        chosen = results.current_hit.message.id
        assert any("active" in str(results.get_option_at_index(i).prompt) for i in range(results.option_count))

        append_reply(live, 1, "one more question answered")
        await wait_until(pilot, lambda: len(results.hits) == 4)
        await settle(pilot)
        assert results.current_hit.message.id == chosen and results.has_focus


async def test_live_off_says_why_and_nothing_is_watched(tmp_path):
    root, live, db = log_tree(tmp_path)
    app = app_for(db, only_roots({"claude-code": [root]}), live=False, live_off_reason="--no-live")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "live off: --no-live" in status_text(app)
        append_reply(live, 1, "not shown until ctrl+r")
        await pilot.pause(0.5)
        await settle(pilot)
        assert app.context.index.session("s-live").message_count == 4


def rendered(renderable) -> str:
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


async def test_the_details_pane_shows_tokens_and_the_active_mark_as_they_change(tmp_path):
    root, live, db = log_tree(tmp_path)
    app = live_app(tmp_path, root, db)
    async with app.run_test(size=SIZE) as pilot:
        tree = await open_day(pilot)
        growing = next(n for n in tree.cursor_node.children if n.data.session.session_id == "s-live")
        tree.move_cursor(growing)
        await settle(pilot)
        body = app.screen.query_one("#session-details-body", Static)
        shown = rendered(body.content)
        assert "active: last message just now" in shown  # 30 s before the clock
        assert "not in the log" in shown  # no usage in this log yet

        append_reply(live, 1, "a reply with usage", {"input_tokens": 6, "output_tokens": 140,
                                                     "cache_creation_input_tokens": 15126,
                                                     "cache_read_input_tokens": 0})
        await wait_until(pilot, lambda: "15k tokens" in rendered(body.content))
        shown = rendered(body.content)
        assert "15k tokens (in 6 · out 140 · cache 0 read, 15k written)" in shown
        assert "active: last message just now" in shown
        assert tree.cursor_node is growing


def busy_weeks(root: Path) -> None:
    """Sessions over the weeks before ``LIVE_NOW``, for the activity strip."""
    for day in range(1, 28, 2):
        lines = [{"type": "user" if i % 2 == 0 else "assistant", "uuid": f"b{day}-{i}", "sessionId": f"s-busy-{day}",
                  "cwd": "/w/work", "timestamp": f"2026-02-{day:02d}T09:{i:02d}:00Z",
                  "message": {"role": "user" if i % 2 == 0 else "assistant", "id": f"mb{day}-{i}",
                              "content": f"step {i} of day {day}"}} for i in range((day * 7) % 40 + 2)]
        log = root / "-w-work" / f"s-busy-{day}.jsonl"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_snapshot_live_status_active_mark_and_activity_strip(tmp_path, snap_compare):
    busy_weeks(tmp_path / "claude")
    root, _live, db = log_tree(tmp_path)
    app = live_app(tmp_path, root, db)

    async def to_the_active_session(pilot) -> None:
        tree = await open_day(pilot)
        tree.move_cursor(next(n for n in tree.cursor_node.children if n.data.session.session_id == "s-live"))
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=to_the_active_session)


async def test_a_new_session_above_the_cursor_leaves_it_on_its_session(tmp_path):
    root, _live, db = log_tree(tmp_path)
    app = live_app(tmp_path, root, db)
    async with app.run_test(size=SIZE) as pilot:
        tree = await open_day(pilot)
        day = tree.cursor_node
        old = next(n for n in day.children if n.data.session.session_id == "s-old")
        tree.move_cursor(old)
        await settle(pilot)
        line = tree.cursor_line
        # Started later that day: listed first, above the cursor.
        new = claude_session(root, "s-new", "proj", ["a brand new session", "its answer"], day=2)
        text = new.read_text(encoding="utf-8").replace("T10:", "T23:")
        new.write_text(text, encoding="utf-8")
        await wait_until(pilot, lambda: any(n.data.session.session_id == "s-new" for n in day.children))
        await settle(pilot)
        assert day.children[0].data.session.session_id == "s-new"
        # The cursor moved down with its session (the tree fits the screen: nothing to scroll).
        assert tree.cursor_node is old and tree.cursor_line == line + 1
        assert "3 sessions" in str(day.parent.label)


async def test_the_tree_and_the_status_line_age_on_one_tick(tmp_path):
    """Issue 33 item 7: six minutes pass with no new line: on the app's clock tick the "active"
    mark goes and the tree's ages and the status line's "updated … ago" move together."""
    root, _live, db = log_tree(tmp_path)
    clock = [LIVE_NOW]
    app = app_for(db, only_roots({"claude-code": [root]}), now=lambda: clock[0])
    async with app.run_test(size=SIZE) as pilot:
        tree = await open_day(pilot)
        project = tree.cursor_node.parent
        growing = next(n for n in tree.cursor_node.children if n.data.session.session_id == "s-live")
        assert "active" in str(growing.label) and "updated just now" in status_text(app)
        assert "just now" in str(project.label)
        clock[0] += 6 * 60
        assert "updated just now" in status_text(app)  # nothing moves between ticks
        app.tick_clock()
        await settle(pilot)
        growing = next(n for n in tree.cursor_node.children if n.data.session.session_id == "s-live")
        assert "active" not in str(growing.label)
        assert "updated 6min ago" in status_text(app) and "6min ago" in str(project.label)

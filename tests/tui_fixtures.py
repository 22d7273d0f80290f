"""Helpers for the app's tests and the screenshot script: one way to build a deterministic app.

``tests/conftest.py`` (shared with the indexer's tests) builds the corpus index; this module
adds what only the UI needs: a fixed clock, a fixed index label and project, no background
refresh, no cursor blink, and a tiny log holding markup and escape sequences.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable

from textual.pilot import Pilot
from textual.widgets import Input

from indexer import Index, SourceRoots, only_roots
from tui.app import HindsightApp, make_app

from conftest import FIXED_NOW, corpus_roots  # tests/ is on sys.path (pytest, or the script)

SIZE = (120, 36)


def build_corpus_index(path: Path) -> Path:
    index = Index(path)
    index.update(corpus_roots(), now=FIXED_NOW)
    index.close()
    return path


def app_for(index_path: Path, roots: SourceRoots | None = None, **overrides) -> HindsightApp:
    """The app as the tests see it: fixed now, label and project; nothing moves on its own."""
    options = dict(
        now=lambda: FIXED_NOW,
        refresh_on_start=False,
        index_label="index.sqlite3",
        project_name="claude_p",
        offer_demo=False,
    )
    options.update(overrides)
    return make_app(Index(index_path), roots if roots is not None else corpus_roots(), **options)


async def settle(pilot: Pilot) -> None:
    """Wait for every worker (search, context, tree, transcript) and the repaint after it."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    freeze(pilot.app)


def freeze(app: HindsightApp) -> None:
    """No blinking cursor in a snapshot."""
    for widget in app.screen.query(Input):
        widget.cursor_blink = False


async def type_query(pilot: Pilot, text: str, *, keys: bool = False) -> None:
    """Put ``text`` in the focused search box: key by key with ``keys``, else in one change."""
    if keys:
        await pilot.press(*text)
    else:
        box = pilot.app.screen.query_one("#query", Input)
        box.value = text
        box.cursor_position = len(text)
    await settle(pilot)


def write_markup_log(root: Path) -> SourceRoots:
    """A one-message Claude Code log whose text is Rich markup plus an escape sequence."""
    folder = root / "-tmp-p"
    folder.mkdir(parents=True)
    line = {
        "type": "user", "uuid": "u1", "sessionId": "s1", "cwd": "/tmp/p", "timestamp": "2026-01-01T00:00:00Z",
        "message": {"role": "user", "content": "[bold red]not markup[/] and \u001b[31mescape sequence"},
    }
    (folder / "s1.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    return only_roots({"claude-code": [root]})


# -- the screen states shared by the snapshot tests and scripts/screenshots.py ----------------
@dataclass(frozen=True)
class ScreenState:
    """One picture of the app: how to get there, and at what terminal size."""

    name: str
    run_before: Callable[[Pilot], Awaitable[None]]
    size: tuple[int, int] = SIZE
    no_logs: bool = False  # start from an empty index with no agent folders


async def _search_results(pilot: Pilot) -> None:
    await type_query(pilot, '"code organization"')
    await pilot.press("down")
    await settle(pilot)


async def _search_empty(pilot: Pilot) -> None:
    await settle(pilot)


async def _search_no_hits(pilot: Pilot) -> None:
    await type_query(pilot, "zzqqxxnotthere")


async def _search_narrow(pilot: Pilot) -> None:
    await type_query(pilot, "tmux")
    await pilot.press("down")
    await settle(pilot)


async def _sessions_tree(pilot: Pilot) -> None:
    from tui.widgets.session_tree import SessionTree

    await pilot.press("f3")
    await settle(pilot)
    tree = pilot.app.screen.query_one(SessionTree)
    node = tree.root
    for label in ("claude-code", "claude_p", "2026-01-23", "Use the Explore task"):
        node = next(c for c in node.children if label in str(c.label))
        node.expand()
        await settle(pilot)
    tree.move_cursor(node)
    await settle(pilot)


async def _transcript(pilot: Pilot) -> None:
    await _search_results(pilot)
    await pilot.press("enter")
    await settle(pilot)


async def _transcript_find(pilot: Pilot) -> None:
    app = pilot.app
    session = app.index.session("pi:ffae836b-9420-4060-ac13-7745215f90ff")
    app.open_transcript(session)
    await settle(pilot)
    await pilot.press("slash", *"AgentSession", "enter")
    await settle(pilot)


async def _help(pilot: Pilot) -> None:
    await pilot.press("f1")
    await settle(pilot)


async def _no_logs(pilot: Pilot) -> None:
    await settle(pilot)


SCREEN_STATES = [
    ScreenState("search", _search_results),
    ScreenState("search_empty", _search_empty),
    ScreenState("search_no_hits", _search_no_hits),
    ScreenState("search_80x24", _search_narrow, size=(80, 24)),
    ScreenState("sessions", _sessions_tree),
    ScreenState("transcript", _transcript),
    ScreenState("transcript_find", _transcript_find),
    ScreenState("help", _help),
    ScreenState("no_logs", _no_logs, no_logs=True),
]


def app_for_state(state: ScreenState, index_path: Path, scratch: Path) -> HindsightApp:
    """The app a state starts from; ``scratch`` holds the empty index of the no-logs state."""
    if state.no_logs:
        return app_for(scratch / "empty.sqlite3", only_roots({"claude-code": [Path("no-agent-logs-here")]}),
                       offer_demo=True, demo_opener=lambda: (Index(scratch / "demo.sqlite3"), corpus_roots()))
    return app_for(index_path)

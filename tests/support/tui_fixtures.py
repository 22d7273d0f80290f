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
from indexer.agents.codex_hooks import hooks_file, install_codex_hooks
from indexer.agents.mcp_registration import install_mcp
from indexer.agents.settings import install_hooks
from indexer.config import data_dir
from indexer.project_scope import ProjectScope
from tui.app import ThreadbackApp, make_app
from tui.screens.hooks import AgentFiles

from conftest import FIXED_NOW, corpus_roots  # tests/ is on sys.path (pytest, or the script)

SIZE = (120, 36)
# Claude Code settings the app reads unless a test passes its own: never the real ~/.claude.
NO_CLAUDE = Path("/nonexistent-threadback-tests")


def build_corpus_index(path: Path) -> Path:
    index = Index(path)
    index.update(corpus_roots(), now=FIXED_NOW)
    index.close()
    return path


def app_for(index_path: Path, roots: SourceRoots | None = None, **overrides) -> ThreadbackApp:
    """The app as the tests see it: fixed now, label and project; nothing moves on its own."""
    options = dict(
        now=lambda: FIXED_NOW,
        refresh_on_start=False,
        index_label="index.sqlite3",
        project_name="claude_p",
        project_scope=ProjectScope("/src/experiments/claude_p"),
        offer_demo=False,
        claude_settings=(NO_CLAUDE / "user" / "settings.json", NO_CLAUDE / "project" / ".claude" / "settings.json"),
    )
    options.update(overrides)
    return make_app(Index(index_path), roots if roots is not None else corpus_roots(), **options)


async def settle(pilot: Pilot) -> None:
    """Wait for every worker (search, context, tree, transcript) and the repaint after it.

    A finished worker's message can start another worker (an index run ends, then the stats
    load), so wait until a repaint leaves none running.
    """
    for _ in range(50):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()  # the messages the workers posted, and any worker they start
        if not any(worker.is_running for worker in pilot.app.workers):
            break
    freeze(pilot.app)


def freeze(app: ThreadbackApp) -> None:
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


# -- a stand-in home: Claude Code settings and a memory folder under a temp folder -------------
SAMPLE_FACTS = """\
# Stable facts
name: Dain
language: zh-TW for chat, English for code
config: 設定檔 live in ~/.config and are backed up before any edit
"""
SAMPLE_EPISODES = [
    {"id": "ep-1a2b3c4d", "ts": "2026-06-24T09:15:00+08:00", "type": "failure", "summary": "AI 誤刪設定檔",
     "detail": "The agent ran rm on ~/.config/app/settings.toml while cleaning the build folder.",
     "lesson": "建立 Hook 守門系統，禁止 rm 指令", "tags": ["safety", "hook"], "importance": 8},
    {"id": "ep-5e6f7a8b", "ts": "2026-06-10T10:00:00Z", "type": "decision",
     "summary": "Use uv for every Python environment", "detail": "pip and venv by hand kept drifting.",
     "tags": ["tools"], "importance": 6},
]
SAMPLE_SCRATCHPAD = """\
# Task: hooks on every machine

- [x] write the installer
- [ ] check the hook 設定 on Windows
- note: Codex reads AGENTS.md, not hooks
"""


def write_sample_memory(folder: Path) -> Path:
    """A small memory folder: three facts, two episodic entries (one in Chinese), a scratchpad."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fact.yml").write_text(SAMPLE_FACTS, encoding="utf-8")
    (folder / "episodic.jsonl").write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in SAMPLE_EPISODES), encoding="utf-8")
    (folder / "scratchpad.md").write_text(SAMPLE_SCRATCHPAD, encoding="utf-8")
    return folder


@dataclass(frozen=True)
class FakeHome:
    """Where a test's Claude Code settings and memory live, shown as ``~/…`` on screen."""

    root: Path

    @property
    def user_settings(self) -> Path:
        return self.root / ".claude" / "settings.json"

    @property
    def project_settings(self) -> Path:
        return self.root / "src" / "claude_p" / ".claude" / "settings.json"

    @property
    def memory_dir(self) -> Path:
        """The project's memory folder (the app is given it, as with ``--memory-dir``)."""
        return self.root / "src" / "claude_p" / "memory"

    def label(self, path: Path) -> str:
        """``~/…`` under the stand-in home; the data dir (the global memory folder, a temp
        folder in the tests) as its default place."""
        for base, shown in ((self.root, "~"), (data_dir(), "~/.local/share/threadback")):
            try:
                return f"{shown}/" + Path(path).relative_to(base).as_posix()
            except ValueError:
                continue
        return str(path)

    @property
    def agent_files(self) -> AgentFiles:
        """Codex's folders and the agents' MCP config files under the stand-in home."""
        return AgentFiles(self.root / ".codex", self.root / "src" / "claude_p" / ".codex",
                          self.root / ".claude.json", self.root / ".codex" / "config.toml")

    def app_options(self) -> dict:
        """``app_for`` overrides: these settings files and memory folder, labelled ``~/…``."""
        return dict(claude_settings=(self.user_settings, self.project_settings),
                    memory_dir=self.memory_dir, path_label=self.label, agent_files=self.agent_files)


# -- the screen states shared by the snapshot tests and scripts/screenshots.py ----------------
@dataclass(frozen=True)
class ScreenState:
    """One picture of the app: how to get there, and at what terminal size."""

    name: str
    run_before: Callable[[Pilot], Awaitable[None]]
    size: tuple[int, int] = SIZE
    no_logs: bool = False  # start from an empty index with no agent folders
    setup: Callable[[Path], dict] | None = None  # writes files under a scratch folder; app_for overrides


async def _search_results(pilot: Pilot) -> None:
    await type_query(pilot, '"code organization"')
    await pilot.press("down")
    await settle(pilot)


async def _search_preview(pilot: Pilot) -> None:
    """The preview scrolled to a hit that long tool output pushed below the fold, focused."""
    await type_query(pilot, "lmstudio")
    await pilot.press("down", "plus", "tab")
    await settle(pilot)


async def _search_closest(pilot: Pilot) -> None:
    """Nothing holds every word: a near spelling is searched, closest matches under a divider."""
    await type_query(pilot, "audioworklet migrtion recorder")


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
    session = app.context.index.session("pi:ffae836b-9420-4060-ac13-7745215f90ff")
    app.open_transcript(session)
    await settle(pilot)
    await pilot.press("slash", *"AgentSession", "enter")
    await settle(pilot)


async def _help(pilot: Pilot) -> None:
    await pilot.press("f1")
    await settle(pilot)


async def _help_memory(pilot: Pilot) -> None:
    await pilot.press("f4")
    await settle(pilot)
    await _help(pilot)


def _memory_home(scratch: Path) -> dict:
    home = FakeHome(scratch / "home")
    write_sample_memory(home.memory_dir)
    return home.app_options()


async def _no_logs(pilot: Pilot) -> None:
    await settle(pilot)


SCREEN_STATES = [
    ScreenState("search", _search_results),
    ScreenState("search_preview", _search_preview),
    ScreenState("search_empty", _search_empty),
    ScreenState("search_no_hits", _search_no_hits),
    ScreenState("search_closest", _search_closest),
    ScreenState("search_80x24", _search_narrow, size=(80, 24)),
    ScreenState("sessions", _sessions_tree),
    ScreenState("transcript", _transcript),
    ScreenState("transcript_find", _transcript_find),
    ScreenState("help", _help),
    ScreenState("help_memory", _help_memory, size=(120, 60), setup=_memory_home),
    ScreenState("no_logs", _no_logs, no_logs=True),
]


async def _search_memory(pilot: Pilot) -> None:
    await pilot.press("ctrl+f")
    await type_query(pilot, "hook OR 設定")
    await pilot.press("down", "down")  # to the results, then to the episodic entry
    await settle(pilot)


async def _hooks(pilot: Pilot) -> None:
    await pilot.press("f6")
    await settle(pilot)


async def _hooks_codex_and_mcp(pilot: Pilot) -> None:
    """F6 scrolled to its read-only part: Codex's hooks and the MCP server."""
    await _hooks(pilot)
    pilot.app.screen.query_one("#hooks-dialog").scroll_end(animate=False)
    await settle(pilot)


def _hooks_home(scratch: Path) -> dict:
    """User settings with another tool's hook and Threadback's; no project settings yet; Codex's
    user hooks installed, the MCP server registered with Claude Code only."""
    home = FakeHome(scratch / "home")
    home.user_settings.parent.mkdir(parents=True)
    home.user_settings.write_text(json.dumps({"model": "sonnet", "hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard-rm"}]}]}}, indent=2) + "\n")
    install_hooks(home.user_settings)
    files = home.agent_files
    files.codex_user.mkdir(parents=True)
    install_codex_hooks(hooks_file(files.codex_user))
    install_mcp(files.claude_mcp)
    return home.app_options()


# The memory-scope search and the hooks screen (tests/app/test_tui_scope_hooks_snapshots.py).
SCOPE_HOOKS_STATES = [
    ScreenState("search_memory", _search_memory, setup=_memory_home),
    ScreenState("hooks", _hooks, setup=_hooks_home),
    ScreenState("hooks_codex_mcp", _hooks_codex_and_mcp, setup=_hooks_home),
]


def app_for_state(state: ScreenState, index_path: Path, scratch: Path) -> ThreadbackApp:
    """The app a state starts from; ``scratch`` holds the empty index of the no-logs state and
    the files a state's ``setup`` writes."""
    if state.setup is not None:
        return app_for(index_path, **state.setup(scratch))
    if state.no_logs:
        return app_for(scratch / "empty.sqlite3", only_roots({"claude-code": [Path("no-agent-logs-here")]}),
                       offer_demo=True, demo_opener=lambda: (Index(scratch / "demo.sqlite3"), corpus_roots()))
    return app_for(index_path)


async def _search_by_session(pilot: Pilot) -> None:
    await type_query(pilot, "theme watcher")
    await pilot.press("ctrl+g")  # one row per session: every word somewhere in the session
    await pilot.press("down")
    await settle(pilot)


# The session view of the search screen (tests/app/test_tui_session_view_snapshots.py).
SESSION_VIEW_STATES = [ScreenState("search_sessions", _search_by_session)]


async def _file_sessions(pilot: Pilot) -> None:
    """Enter on a Pi edit of main.ts: the sessions that touched that file."""
    index = pilot.app.context.index
    session = index.session("pi:d703a1a9-1b7b-4fb1-b512-c9738b1fe617")
    call = next(m for m in index.messages(session)
                if m.kind == "tool_call" and m.text == "[edit] packages/coding-agent/src/main.ts")
    pilot.app.open_transcript(session, call.id)
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


# The per-file view (tests/app/test_tui_files_and_archive.py).
FILE_STATES = [ScreenState("file_sessions", _file_sessions)]

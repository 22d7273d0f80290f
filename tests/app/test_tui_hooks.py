"""F6 / the command palette: Claude Code hooks status, install and uninstall, on temp files."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from textual.widgets import Button, Static

from indexer.agents.settings import HOOK_EVENTS
from tui.screens.confirm import ConfirmScreen
from tui.screens.help import HelpScreen
from tui.screens.hooks import HooksScreen
from tui.screens.search import SearchScreen
from tui_fixtures import SIZE, FakeHome, app_for, settle

OTHER_HOOKS = {"model": "sonnet", "hooks": {"PreToolUse": [
    {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard-rm"}]}]}}


@pytest.fixture
def home(tmp_path, monkeypatch) -> FakeHome:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))  # never the real ~/.claude
    return FakeHome(tmp_path / "home")


def shown(app, selector: str) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.screen.query_one(selector, Static).content)
    return console.export_text()


async def open_hooks(pilot) -> HooksScreen:
    await settle(pilot)
    await pilot.press("f6")
    await settle(pilot)
    assert isinstance(pilot.app.screen, HooksScreen)
    return pilot.app.screen


async def ask_to_install(pilot) -> None:
    await pilot.click("#install-user")
    await pilot.pause()
    assert isinstance(pilot.app.screen, ConfirmScreen)


async def press_and_confirm(pilot, button: str, answer: str = "y") -> None:
    await pilot.click(button)
    await pilot.pause()
    assert isinstance(pilot.app.screen, ConfirmScreen)
    await pilot.press(answer)
    await settle(pilot)
    assert isinstance(pilot.app.screen, HooksScreen)


async def test_install_then_uninstall_round_trips_the_user_settings(corpus_index_path, home):
    home.user_settings.parent.mkdir(parents=True)
    home.user_settings.write_text("{}\n")
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_hooks(pilot)
        status = shown(app, "#hooks-user-status")
        assert "~/.claude/settings.json" in status and "not installed" in status
        assert screen.query_one("#uninstall-user", Button).disabled

        await press_and_confirm(pilot, "#install-user")
        written = json.loads(home.user_settings.read_text())
        commands = {event: [h["command"] for g in groups for h in g["hooks"]] for event, groups in written["hooks"].items()}
        assert commands == {event: [f"threadback hook {sub}"] for event, sub in HOOK_EVENTS.items()}
        status = shown(app, "#hooks-user-status")
        assert "installed" in status and "not installed" not in status
        assert "✓ SessionStart" in status and "✓ SessionEnd" in status
        assert screen.query_one("#install-user", Button).disabled
        assert dict(app.hooks)["user"].complete

        await press_and_confirm(pilot, "#uninstall-user")
        assert home.user_settings.read_text() == "{}\n"
        assert "not installed" in shown(app, "#hooks-user-status")
        assert not home.project_settings.exists()


async def test_project_settings_keep_other_hooks(corpus_index_path, home):
    home.project_settings.parent.mkdir(parents=True)
    original = json.dumps(OTHER_HOOKS, indent=2) + "\n"
    home.project_settings.write_text(original)
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await open_hooks(pilot)
        assert "Project settings (claude_p)" in shown(app, "#hooks-project-status")
        await press_and_confirm(pilot, "#install-project")
        written = json.loads(home.project_settings.read_text())
        assert written["hooks"]["PreToolUse"] == OTHER_HOOKS["hooks"]["PreToolUse"]
        assert set(HOOK_EVENTS) <= set(written["hooks"])
        assert "not installed (no settings file yet)" in shown(app, "#hooks-user-status")
        await press_and_confirm(pilot, "#uninstall-project")
        assert home.project_settings.read_text() == original
        assert not home.user_settings.exists()


async def test_saying_no_writes_nothing(corpus_index_path, home):
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await open_hooks(pilot)
        await press_and_confirm(pilot, "#install-user", answer="n")
        assert not home.user_settings.exists()
        assert "not installed (no settings file yet)" in shown(app, "#hooks-user-status")


async def test_a_broken_settings_file_is_reported_and_left_alone(corpus_index_path, home):
    home.user_settings.parent.mkdir(parents=True)
    home.user_settings.write_text('{"hooks": {,}\n')
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_hooks(pilot)
        status = shown(app, "#hooks-user-status")
        assert "cannot read it" in status and "~/.claude/settings.json is not valid JSON (line 1" in status
        assert screen.query_one("#install-user", Button).disabled
        assert screen.query_one("#uninstall-user", Button).disabled
        await pilot.click("#install-user")
        await settle(pilot)
        assert app.screen is screen
    assert home.user_settings.read_text() == '{"hooks": {,}\n'
    assert not home.user_settings.with_name("settings.json.bak").exists()


async def test_a_write_that_fails_says_so(corpus_index_path, home, monkeypatch):
    home.user_settings.parent.mkdir(parents=True)
    home.user_settings.write_text("{}\n")
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await open_hooks(pilot)
        # Someone breaks the file between reading the status and confirming.
        await ask_to_install(pilot)
        home.user_settings.write_text("[1, 2")
        await pilot.press("y")
        await settle(pilot)
        status = shown(app, "#hooks-user-status")
        assert "Nothing was written" in status
        assert any(n.title == "Hooks not changed" for n in app._notifications)
    assert home.user_settings.read_text() == "[1, 2"


async def test_palette_and_help_reach_the_hooks(corpus_index_path, home):
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        help_text = "\n".join(app.screen.query_one("#help-body").render_line(y).text for y in range(60))
        assert isinstance(app.screen, HelpScreen)
        assert "Claude Code hooks: off" in help_text and "f6" in help_text.lower()
        await pilot.press("escape")
        assert isinstance(app.screen, SearchScreen)
        await pilot.press("ctrl+p")
        await pilot.press(*"Hooks and MCP")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, HooksScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, SearchScreen)


async def test_without_threadback_on_path_the_hooks_run_it_by_its_full_path(corpus_index_path, home, monkeypatch, tmp_path):
    launched = tmp_path / "venv bin" / "threadback"  # a space, so the path must be quoted
    launched.parent.mkdir()
    launched.write_text("#!/bin/sh\n")
    monkeypatch.setattr("shutil.which", lambda name: None)  # loaded where the hooks are installed
    monkeypatch.setattr("sys.argv", [str(launched)])
    home.user_settings.parent.mkdir(parents=True)
    home.user_settings.write_text("{}\n")
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await open_hooks(pilot)
        await ask_to_install(pilot)
        assert "not on PATH" in shown(app, "#confirm-question") and str(launched) in shown(app, "#confirm-question")
        await pilot.press("y")
        await settle(pilot)
    written = json.loads(home.user_settings.read_text())
    commands = [h["command"] for groups in written["hooks"].values() for g in groups for h in g["hooks"]]
    assert commands and all(c.startswith(f"'{launched}' hook ") for c in commands)


async def test_f6_shows_codex_hooks_and_the_mcp_server_as_the_cli_installs_them(corpus_index_path, home, tmp_path):
    """Issue 33 item 13: what `threadback hooks install --codex` and `--mcp` write (real
    processes) is what F6 shows, next to the commands that install the rest."""
    import subprocess
    import sys

    from cli_process import REPO, cli_env

    files = home.agent_files
    env = cli_env(CODEX_HOME=str(files.codex_user), CLAUDE_CONFIG_DIR=str(files.claude_mcp.parent))
    for argv in (["hooks", "install", "--codex"], ["hooks", "install", "--mcp", "--claude-code"]):
        done = subprocess.run([sys.executable, "-m", "tui.cli", *argv], capture_output=True, text=True, env=env,
                              cwd=REPO, timeout=60)
        assert done.returncode == 0, done.stderr
    status = subprocess.run([sys.executable, "-m", "tui.cli", "hooks", "status", "--json"], capture_output=True,
                            text=True, env=env, cwd=tmp_path, timeout=60)
    app = app_for(corpus_index_path, **home.app_options())
    async with app.run_test(size=SIZE) as pilot:
        await open_hooks(pilot)
        text = shown(app, "#hooks-other")
    user_line = text.split("User  ~/.codex/hooks.json")[1].split("\n")[1]
    assert "✓ SessionStart" in user_line and "✓ Stop" in user_line and user_line.rstrip().endswith("installed")
    assert "Project  ~/src/claude_p/.codex/hooks.json" in text and "not installed" in text
    assert "Claude Code  ~/.claude.json  registered" in text
    assert "Codex  ~/.codex/config.toml  not registered" in text
    assert "threadback hooks install --codex" in text and "threadback hooks install --mcp" in text
    assert "Pi reads AGENTS.md" in text and "Codex and pi read AGENTS.md" not in text
    # `threadback hooks status` says the same of the same files
    assert status.returncode == 0, status.stderr
    routes = {r["path"]: r for r in json.loads(status.stdout)}
    assert routes[str(files.codex_user / "hooks.json")]["missing"] == []
    assert routes[str(files.claude_mcp)]["installed"] == ["threadback"]
    assert routes[str(files.codex_mcp)]["installed"] == []

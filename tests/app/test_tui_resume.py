"""ctrl+e resumes and ctrl+d forks (after a one-line confirm) a session from a hit, a tree node or a transcript: a fake agent on
PATH records the argv and folder it ran with. The runner is the app's injectable step (a
headless app cannot hand its terminal over), here a plain subprocess; the default runner is
checked to fall back to copying where suspending is not possible."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tui.agent_launch import AgentExit
from tui.widgets.session_tree import SessionTree

from launch_logs import CLAUDE_ID, CODEX_ID, build, fake_agents, recorded_runs, three_agent_tree
from tui_fixtures import SIZE, app_for, settle, type_query


def run_plainly(app, launch) -> AgentExit:
    return AgentExit(subprocess.run(list(launch.argv), cwd=launch.cwd, check=False).returncode)


@pytest.fixture
def world(tmp_path, monkeypatch):
    cwd = tmp_path / "my project"
    cwd.mkdir()
    roots = three_agent_tree(tmp_path / "logs", cwd)
    db = build(roots, tmp_path / "index.sqlite3")
    bin_dir = fake_agents(tmp_path / "bin", "claude", "codex", "pi", "my-claude")
    record = tmp_path / "runs.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_AGENT_RECORD", str(record))
    monkeypatch.setenv("THREADBACK_CONFIG", str(tmp_path / "config.toml"))
    return {"tmp": tmp_path, "cwd": cwd, "db": db, "roots": roots, "bin": bin_dir, "record": record}


def make(world, **overrides):
    return app_for(world["db"], world["roots"], agent_runner=overrides.pop("agent_runner", run_plainly), **overrides)


def titles(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


async def test_ctrl_e_on_a_hit_runs_the_agent_in_the_sessions_folder(world):
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "login")
        await pilot.press("down", "ctrl+e")
        await settle(pilot)
        (run,) = recorded_runs(world["record"])
        assert run["argv"][1:] == ["--resume", CLAUDE_ID] and Path(run["cwd"]) == world["cwd"]
        assert any(t.startswith("Back from the agent: claude exited") for t in titles(app))


async def test_ctrl_d_in_a_transcript_forks_and_the_exit_code_is_told(world, monkeypatch):
    monkeypatch.setenv("FAKE_AGENT_EXIT", "2")
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(app.context.index.session(CLAUDE_ID))
        await settle(pilot)
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert recorded_runs(world["record"]) == []  # a fork asks first
        await pilot.press("enter")
        await settle(pilot)
        assert recorded_runs(world["record"])[0]["argv"][1:] == ["--resume", CLAUDE_ID, "--fork-session"]
        assert any("exited with code 2" in t for t in titles(app))


async def test_fork_on_an_agent_whose_fork_is_turned_off_says_so_from_the_tree(world):
    (world["tmp"] / "config.toml").write_text("[resume.codex]\nfork = []\n")
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        tree.focus()
        for _ in range(12):  # open agent, project and day nodes until the codex session
            session = tree.current_session
            if session is not None and session.session_id == CODEX_ID:
                break
            node = tree.cursor_node
            if node is not None and node.allow_expand and not node.is_expanded and \
                    (node.data is None or node.data.agent in (None, "codex")):
                await pilot.press("enter")
                await settle(pilot)
            await pilot.press("down")
        assert tree.current_session is not None and tree.current_session.session_id == CODEX_ID
        await pilot.press("ctrl+d", "enter")
        await settle(pilot)
        assert recorded_runs(world["record"]) == []
        assert any("forking is turned off for Codex CLI" in t for t in titles(app))
        await pilot.press("ctrl+e")
        await settle(pilot)
        assert recorded_runs(world["record"])[0]["argv"][1:] == ["resume", CODEX_ID]


async def test_a_missing_binary_copies_the_command_instead(world, monkeypatch):
    monkeypatch.setenv("PATH", str(world["tmp"] / "empty"))
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(app.context.index.session(CLAUDE_ID))
        await settle(pilot)
        await pilot.press("ctrl+e")
        await settle(pilot)
        assert app.clipboard == f"cd '{world['cwd']}' && claude --resume {CLAUDE_ID}"
        assert any("'claude' is not installed" in t and "Copied the command" in t for t in titles(app))
        assert recorded_runs(world["record"]) == []


async def test_a_missing_folder_copies_the_command_instead(world):
    world["cwd"].rmdir()
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(app.context.index.session(CLAUDE_ID))
        await settle(pilot)
        await pilot.press("ctrl+e")
        await settle(pilot)
        assert app.clipboard.endswith(f"claude --resume {CLAUDE_ID}")
        assert any("no longer exists" in t for t in titles(app))
        assert recorded_runs(world["record"]) == []


async def test_the_template_comes_from_the_config_file(world):
    (world["tmp"] / "config.toml").write_text('[resume.claude-code]\nresume = ["my-claude", "{id}", "{cwd}"]\n')
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(app.context.index.session(CLAUDE_ID))
        await settle(pilot)
        await pilot.press("ctrl+e")
        await settle(pilot)
        (run,) = recorded_runs(world["record"])
        assert Path(run["argv"][0]).name == "my-claude" and run["argv"][1:] == [CLAUDE_ID, str(world["cwd"])]
        await pilot.press("ctrl+k")  # the copied command is the one ctrl+e runs
        assert app.clipboard == f"cd '{world['cwd']}' && my-claude {CLAUDE_ID} '{world['cwd']}'"


async def test_the_default_runner_falls_back_to_copying_where_the_app_cannot_suspend(world):
    app = app_for(world["db"], world["roots"])  # the real runner: a headless app cannot suspend
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(app.context.index.session(CLAUDE_ID))
        await settle(pilot)
        await pilot.press("ctrl+e")
        await settle(pilot)
        assert app.clipboard.endswith(f"claude --resume {CLAUDE_ID}")
        assert any("cannot hand itself over" in t for t in titles(app))
        assert recorded_runs(world["record"]) == []

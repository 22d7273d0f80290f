"""One config reader (issue 35 item 2, issue 33 item 6): every way a config file can be wrong is
one line naming the file and the line, exit 2, from every command that reads it; hooks say so on
stderr and go on; the app opens and says so once."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from indexer import ConfigError, load_roots
from indexer.config import load_launch_templates, read_config

from cli_process import REPO, assert_one_line_no_traceback, cli_env, threadback
from tui_fixtures import SIZE, settle

BROKEN = {
    "not UTF-8": (b"# mine\n[live]\nenabled = \"caf\xe9\"\n", 3, "not UTF-8"),
    "not TOML": (b"[roots]\nclaude-code = /a\n", 2, "not valid TOML: Invalid value"),
    "not TOML at the end": (b"[roots]\n\nclaude-code = [\"/a\"\n", 3, "not valid TOML: Unclosed array"),
    "wrong type": (b"[roots]\ncodex = [\"/a\"]\n\n[live]\nenabled = \"no\"\n", 5, "[live] enabled must be true or false"),
    "unknown agent": (b"[resume.vscode]\nresume = [\"code\"]\n", 1, "unknown agent 'vscode' in [resume]"),
    "folders as a number": (b"[roots]\n  codex = 5\n", 2, "[roots] codex must be a folder or a list of folders"),
    "a typo'd table": (b"[live]\nenabled = true\n[archives]\nenabled = false\n", 3, "unknown setting 'archives'"),
}


@pytest.mark.parametrize("kind", BROKEN)
def test_each_failure_is_one_error_naming_the_file_and_line(tmp_path, kind):
    body, line, said = BROKEN[kind]
    config = tmp_path / "config.toml"
    config.write_bytes(body)
    with pytest.raises(ConfigError) as caught:
        read_config(config)
    assert str(caught.value).startswith(f"config file {config}:{line}: ") and said in str(caught.value)
    for consumer in (load_roots, load_launch_templates):  # every view raises the same error
        with pytest.raises(ConfigError, match="config file"):
            consumer(config_file=config)


def test_the_file_is_read_once_and_again_when_it_changes(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[roots]\npi = "/p"\n[live]\nenabled = false\n', encoding="utf-8")
    first = read_config(config)
    assert first.roots == {"pi": ("/p",)} and first.live is False and first.archive is True
    assert read_config(config) is first  # the same object: not parsed again
    config.write_text('[roots]\npi = ["/q", "/r"]\n', encoding="utf-8")
    os.utime(config, ns=(1, 1))  # a new stamp even on a coarse clock
    assert read_config(config).roots == {"pi": ("/q", "/r")} and read_config(config).live is True
    assert read_config(tmp_path / "none.toml") == type(first)()  # no file: the defaults


COMMANDS = [
    ["index", "-q"],
    ["search", "theme"],
    ["sessions"],
    ["show", "d5b6a7c9"],
    ["resume", "d5b6a7c9"],
    ["events"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=[a[0] for a in COMMANDS])
def test_every_command_reports_a_config_that_is_not_utf8(tmp_path, corpus_index_path, argv):
    config = tmp_path / "config.toml"
    config.write_bytes(BROKEN["not UTF-8"][0])
    proc = threadback(*argv, "--db", str(corpus_index_path), THREADBACK_CONFIG=str(config))
    assert proc.returncode == 2, proc.stderr
    line = assert_one_line_no_traceback(proc)
    assert line == f"threadback: config file {config}:3: not UTF-8 text (save it as UTF-8)"
    assert proc.stdout == ""


def test_a_hook_says_so_on_stderr_and_still_answers(tmp_path, corpus_index_path):
    config = tmp_path / "config.toml"
    config.write_bytes(BROKEN["wrong type"][0])
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "x", "cwd": str(tmp_path),
                        "prompt": "didn't we fix the theme watcher before?"})
    proc = subprocess.run([sys.executable, "-m", "tui.cli", "hook", "prompt", "--text"],
                          input=event, capture_output=True, text=True, cwd=REPO, timeout=60,
                          env=cli_env(THREADBACK_CONFIG=str(config), THREADBACK_DB=str(corpus_index_path)))
    assert proc.returncode == 0  # a hook never fails the agent
    assert proc.stderr == f"threadback: config file {config}:5: [live] enabled must be true or false, not 'no'\n"
    assert "theme" in proc.stdout.lower()  # the reminder is still given


def test_the_mcp_server_says_so_and_does_not_start(tmp_path, corpus_index_path):
    config = tmp_path / "config.toml"
    config.write_bytes(BROKEN["unknown agent"][0])
    proc = subprocess.run([sys.executable, "-m", "tui.cli", "mcp", "--db", str(corpus_index_path)], input="",
                          capture_output=True, text=True, cwd=REPO, timeout=60,
                          env=cli_env(THREADBACK_CONFIG=str(config)))
    assert proc.returncode == 2 and proc.stdout == ""
    assert assert_one_line_no_traceback(proc).startswith(f"threadback: config file {config}:1: unknown agent")


async def test_the_app_opens_and_says_so_once(tmp_path, corpus_index_path, monkeypatch):
    from tui.cli.open_app import app_of
    from tui.cli.main import build_parser

    config = tmp_path / "config.toml"
    config.write_bytes(BROKEN["not TOML"][0])
    monkeypatch.setenv("THREADBACK_CONFIG", str(config))
    app = app_of(build_parser(["--db", str(corpus_index_path)]).parse_args(["--db", str(corpus_index_path)]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await pilot.press("f2")
        await settle(pilot)
        notes = [n for n in app._notifications if n.title == "Config file not used"]
        assert len(notes) == 1 and f"config file {config}:2: not valid TOML" in notes[0].message
        assert notes[0].severity == "error"
        assert app.live_status == "live off: the config file cannot be read" and not app.refresh_on_start
    app.context.index.close()


def test_a_file_found_good_is_not_parsed_again_by_a_search(tmp_path, corpus_index_path):
    """The search path pays a ``stat`` for an unchanged, good file: no ``tomllib`` loaded; an
    edit is checked again at once."""
    from test_startup_imports import imported_modules

    config = tmp_path / "config.toml"
    config.write_text("[live]\nenabled = false\n", encoding="utf-8")
    env = cli_env(THREADBACK_CONFIG=str(config), THREADBACK_HOME=str(tmp_path / "home"))
    argv = ["search", "theme", "--db", str(corpus_index_path)]
    first, _ = imported_modules(argv, env)
    assert "tomllib" in first  # read and found good once
    again, out = imported_modules(argv, env)
    assert "tomllib" not in again and "dataclasses" not in again and out
    config.write_text("[live]\nenabled = 1\n", encoding="utf-8")
    os.utime(config, ns=(1, 1))
    proc = threadback(*argv, THREADBACK_CONFIG=str(config), THREADBACK_HOME=str(tmp_path / "home"))
    assert proc.returncode == 2 and f"{config}:2: [live] enabled must be true or false" in proc.stderr


async def test_a_config_broken_while_the_app_runs_is_told_once(tmp_path, corpus_index_path, monkeypatch):
    """Each index run after the edit fails the same way: one notification, the status line keeps it."""
    import shutil

    from indexer import only_roots

    config = tmp_path / "config.toml"
    config.write_text("[archive]\nenabled = true\n", encoding="utf-8")
    monkeypatch.setenv("THREADBACK_CONFIG", str(config))
    db = tmp_path / "index.sqlite3"
    shutil.copy(corpus_index_path, db)
    from tui_fixtures import app_for

    app = app_for(db, only_roots({"claude-code": [tmp_path / "none"]}))
    async with app.run_test(size=SIZE) as pilot:
        config.write_text("[archive]\nenabled = \"yes\"\n", encoding="utf-8")
        for _ in range(3):
            app.refresh_index()
            await settle(pilot)
        notes = [n for n in app._notifications if "enabled must be true or false" in n.message]
        assert len(notes) == 1
        assert "enabled must be true or false" in (app.index_problem or "")

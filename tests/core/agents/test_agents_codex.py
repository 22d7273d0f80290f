"""Codex hooks: installed into a temporary CODEX_HOME in Codex's documented format (hooks.json, or
the ``[hooks]`` tables of config.toml), removed exactly, and answered by the real ``threadback``
subprocess fed the events Codex sends."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from indexer.agents.caller import hook_caller
from indexer.agents.codex_hooks import CODEX_HOOK_EVENTS, codex_hooks_status
from indexer.agents.usage import read_usage
from tui.cli import exits
from tui.cli.main import main

from agent_logs import build_index, claude_session

ROOT = Path(__file__).resolve().parents[3]
THREAD = "019a0f2e-7c1d-7a30-9d4e-5b6c7d8e9f00"
# Codex's hook events and handler fields (codex-rs/config/src/hook_config.rs).
CODEX_EVENTS = {"PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact", "SessionStart",
                "UserPromptSubmit", "Stop"}
HANDLER_KEYS = {"type", "command", "timeout", "async", "statusMessage"}

USER_HOOKS = {
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 5}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "python3 ~/bin/log_prompt.py"}]}],
    }
}


@pytest.fixture
def codex_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.chdir(tmp_path)
    return home


def check_codex_shape(hooks_file: dict) -> None:
    """What Codex's ``HooksFile`` accepts: events -> groups -> command handlers."""
    assert set(hooks_file) == {"hooks"}
    for event, groups in hooks_file["hooks"].items():
        assert event in CODEX_EVENTS
        for group in groups:
            assert set(group) <= {"matcher", "hooks"}
            for handler in group["hooks"]:
                assert set(handler) <= HANDLER_KEYS and handler["type"] == "command"
                assert isinstance(handler["command"], str) and handler["command"].strip()
                assert isinstance(handler.get("timeout", 1), int)


def ours(hooks_file: dict) -> dict[str, list[str]]:
    return {event: [h["command"] for g in groups for h in g["hooks"] if "threadback" in h["command"]]
            for event, groups in hooks_file["hooks"].items()}


def test_install_merges_into_hooks_json_and_uninstall_restores_it(codex_home, capsys):
    path = codex_home / "hooks.json"
    path.parent.mkdir(parents=True)
    original = json.dumps(USER_HOOKS, indent=2) + "\n"
    path.write_text(original, encoding="utf-8")

    assert main(["hooks", "install", "--codex"]) == exits.OK
    out = capsys.readouterr().out
    assert f"to {path}" in out and "/hooks" in out
    installed = json.loads(path.read_text(encoding="utf-8"))
    check_codex_shape(installed)
    assert ours(installed) == {"PreToolUse": [], "UserPromptSubmit": ["threadback hook prompt"],
                               "SessionStart": ["threadback hook session-start"], "Stop": ["threadback hook refresh"]}
    # The user's own hooks keep their place (Codex keys a hook's trust by its position).
    assert installed["hooks"]["UserPromptSubmit"][0] == USER_HOOKS["hooks"]["UserPromptSubmit"][0]
    assert installed["hooks"]["PreToolUse"] == USER_HOOKS["hooks"]["PreToolUse"]
    assert (codex_home / "hooks.json.bak").read_text(encoding="utf-8") == original

    once = path.read_bytes()
    assert main(["hooks", "install", "--codex"]) == exits.OK
    assert "already installed" in capsys.readouterr().out and path.read_bytes() == once

    assert main(["hooks", "status", "--codex", "--user", "--json"]) == exits.OK
    [status] = json.loads(capsys.readouterr().out)
    assert status["agent"] == "codex" and status["installed"] == list(CODEX_HOOK_EVENTS) and not status["missing"]

    assert main(["hooks", "uninstall", "--codex"]) == exits.OK
    out = capsys.readouterr().out
    assert "removed Threadback hooks" in out and "removed Threadback's Codex rules" in out
    assert path.read_text(encoding="utf-8") == original
    assert not (codex_home / "rules" / "threadback.rules").exists()
    assert main(["hooks", "uninstall", "--codex"]) == exits.OK
    assert "nothing changed" in capsys.readouterr().out


def test_install_forbids_the_approval_commands_in_codex_rules(codex_home, capsys):
    """Deny rules for every agent we install hooks for: Codex's are ``prefix_rule``s in its
    rules folder (Starlark), each with examples Codex checks when it loads them."""
    assert main(["hooks", "install", "--codex"]) == exits.OK
    rules = codex_home / "rules" / "threadback.rules"
    assert f"rules in {rules}" in capsys.readouterr().out
    text = rules.read_text(encoding="utf-8")
    for verb, action in (("rules", "review"), ("memory", "allow")):
        assert f'pattern = ["threadback", "{verb}", "{action}"],' in text
    assert text.count('decision = "forbidden"') == 2
    mine = codex_home / "rules" / "default.rules"  # the user's own rules are never touched
    mine.write_text('prefix_rule(pattern = ["ls"], decision = "allow")\n', encoding="utf-8")
    assert main(["hooks", "uninstall", "--codex"]) == exits.OK
    assert not rules.exists() and mine.exists()


def test_a_folder_that_keeps_hooks_in_config_toml_gets_ours_there(codex_home, capsys):
    config = codex_home / "config.toml"
    config.parent.mkdir(parents=True)
    original = ('# my Codex settings\nmodel = "gpt-5"  # keep this comment\n\n'
                '[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\n'
                'type = "command"\ncommand = "~/bin/guard.sh"\n\n'
                '[hooks.state."/x/config.toml:pre_tool_use:0:0"]\ntrusted_hash = "sha256:abc"\n')
    config.write_text(original, encoding="utf-8")

    assert main(["hooks", "install", "--codex"]) == exits.OK
    assert f"to {config}" in capsys.readouterr().out
    assert not (codex_home / "hooks.json").exists()
    text = config.read_text(encoding="utf-8")
    assert "# keep this comment" in text
    data = tomllib.loads(text)
    assert data["hooks"]["state"] == {"/x/config.toml:pre_tool_use:0:0": {"trusted_hash": "sha256:abc"}}
    check_codex_shape({"hooks": {k: v for k, v in data["hooks"].items() if k != "state"}})
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "threadback hook session-start"
    assert codex_hooks_status(config).complete

    assert main(["hooks", "uninstall", "--codex"]) == exits.OK
    assert config.read_text(encoding="utf-8") == original


def test_a_broken_file_is_reported_and_left_alone(codex_home, capsys):
    path = codex_home / "hooks.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": ', encoding="utf-8")
    assert main(["hooks", "install", "--codex"]) == exits.REFUSED
    assert "not valid JSON" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == '{"hooks": '


def test_the_caller_is_read_from_the_payload():
    assert hook_caller({"session_id": THREAD, "turn_id": "t1", "hook_event_name": "UserPromptSubmit"}) == "codex"
    assert hook_caller({"session_id": THREAD, "hook_event_name": "SessionStart", "source": "startup",
                        "transcript_path": f"/home/u/.codex/sessions/2026/03/01/rollout-2026-03-01T10-00-00-{THREAD}.jsonl"}) == "codex"
    assert hook_caller({"session_id": "abc", "hook_event_name": "SessionStart",
                        "transcript_path": "/home/u/.claude/projects/-w-x/abc.jsonl"}) == "claude-code"
    assert hook_caller({}) == "claude-code"


def codex_event(event: str, **extra) -> dict:
    """An event as Codex sends it (codex-rs/hooks/src/schema.rs, *CommandInput)."""
    base = {"session_id": THREAD, "transcript_path": f"/tmp/codex/sessions/rollout-2026-03-01T10-00-00-{THREAD}.jsonl",
            "cwd": str(ROOT), "hook_event_name": event, "model": "gpt-5", "permission_mode": "default"}
    if event != "SessionStart":
        base["turn_id"] = "turn-1"
    return {**base, **extra}


def test_installed_commands_answer_codex_in_its_format(codex_home, tmp_path):
    root = tmp_path / "logs"
    claude_session(root, "redis-good", "shop", ["the redis port clashes, move it", "moved the redis port to 6380"])
    db = build_index(root, tmp_path / "index.sqlite3")
    program = Path(sys.executable).with_name("threadback")
    if not program.exists():
        pytest.skip("the threadback script is not installed in this environment")
    assert main(["hooks", "install", "--codex", "--program", str(program)]) == exits.OK
    installed = json.loads((codex_home / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("THREADBACK_", "CLAUDE_"))}
    env.update({"THREADBACK_DB": str(db), "THREADBACK_HOME": str(tmp_path / "home"),
                "THREADBACK_MEMORY_DIR": str(tmp_path / "memory")})
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".hook-refresh").touch()  # a refresh just ran: Stop starts no index run

    def run(event: str, payload: dict) -> subprocess.CompletedProcess:
        command = installed[event][0]["hooks"][0]["command"]
        return subprocess.run(shlex.split(command), input=json.dumps(payload).encode(), capture_output=True,
                              env=env, cwd=tmp_path, timeout=30)

    prompt = run("UserPromptSubmit", codex_event("UserPromptSubmit", prompt="same trick as with the redis port"))
    assert prompt.returncode == 0 and prompt.stderr == b""
    answer = json.loads(prompt.stdout)
    assert set(answer) == {"hookSpecificOutput"}
    assert set(answer["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "threadback show redis-good --around" in answer["hookSpecificOutput"]["additionalContext"]
    assert f"--exclude-session {THREAD}" in answer["hookSpecificOutput"]["additionalContext"]

    start = run("SessionStart", codex_event("SessionStart", source="startup"))
    started = json.loads(start.stdout)["hookSpecificOutput"]
    assert started["hookEventName"] == "SessionStart" and "threadback search" in started["additionalContext"]

    stop = run("Stop", codex_event("Stop", stop_hook_active=False, last_assistant_message="done"))
    assert stop.returncode == 0 and stop.stdout == b""

    events = read_usage(tmp_path / "home" / "usage.jsonl")
    assert {e.agent for e in events} == {"codex"} and "hook-prompt" in {e.kind for e in events}

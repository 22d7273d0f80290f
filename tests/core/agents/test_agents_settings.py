"""Installing Threadback's hooks into Claude Code's settings.json and taking them out again."""

from __future__ import annotations

import json

import pytest

from indexer.agents.settings import (
    HOOK_EVENTS,
    SettingsError,
    hooks_status,
    install_hooks,
    is_threadback_command,
    uninstall_hooks,
    user_settings_path,
)
from tui.cli import exits
from tui.cli.main import main

EXISTING = {
    "model": "sonnet",
    "permissions": {"allow": ["Bash(git status)"], "deny": []},
    "hooks": {
        "UserPromptSubmit": [
            {"matcher": "", "hooks": [{"type": "command", "command": "~/bin/log-prompt.sh", "timeout": 5}]}
        ],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "env": {"FOO": "ünïcode"},
    "statusLine": {"type": "command", "command": "echo hi"},
}


@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("trailing_newline", [True, False])
def test_install_then_uninstall_is_byte_identical(tmp_path, ensure_ascii, trailing_newline):
    path = tmp_path / "settings.json"
    original = json.dumps(EXISTING, indent=2, ensure_ascii=ensure_ascii) + ("\n" if trailing_newline else "")
    path.write_text(original, encoding="utf-8")

    change = install_hooks(path)
    assert set(change.added) == set(HOOK_EVENTS)
    assert change.backup is not None and change.backup.read_text(encoding="utf-8") == original
    data = json.loads(path.read_text(encoding="utf-8"))
    assert list(data) == list(EXISTING)  # key order kept
    assert data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == "~/bin/log-prompt.sh"
    assert data["hooks"]["UserPromptSubmit"][1]["hooks"][0]["command"] == "threadback hook prompt"
    assert data["hooks"]["PreToolUse"] == EXISTING["hooks"]["PreToolUse"]
    assert data["hooks"]["SessionStart"][0]["hooks"][0] == {
        "type": "command", "command": "threadback hook session-start", "timeout": 10,
    }
    assert data["hooks"]["SessionEnd"][0]["hooks"][0]["command"] == "threadback hook refresh"
    assert hooks_status(path).complete

    after_install = path.read_bytes()
    assert not install_hooks(path).changed  # idempotent: nothing added, file not rewritten
    assert path.read_bytes() == after_install

    change = uninstall_hooks(path)
    assert set(change.removed) == set(HOOK_EVENTS)
    assert path.read_text(encoding="utf-8") == original
    assert hooks_status(path).installed == ()
    assert not uninstall_hooks(path).changed


def test_install_into_missing_file_and_uninstall_leaves_empty_object(tmp_path):
    path = tmp_path / "sub" / ".claude" / "settings.json"
    change = install_hooks(path)
    assert change.changed and change.backup is None
    assert hooks_status(path).complete
    uninstall_hooks(path)
    assert json.loads(path.read_text(encoding="utf-8")) == {}


def test_compact_file_stays_compact(tmp_path):
    path = tmp_path / "settings.json"
    original = json.dumps({"a": 1, "hooks": {}})
    path.write_text(original, encoding="utf-8")
    install_hooks(path)
    assert "\n" not in path.read_text(encoding="utf-8").strip()
    uninstall_hooks(path)
    # Known limit: an empty "hooks" (or event list) that ours were added to cannot be told
    # from one we created, so it goes when ours leave; nothing with content is ever dropped.
    assert path.read_text(encoding="utf-8") == '{"a": 1}'


def test_broken_settings_are_reported_and_not_touched(tmp_path):
    path = tmp_path / "settings.json"
    broken = '{\n  "model": "sonnet",\n  "hooks": {\n}\n'
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(SettingsError, match=r"not valid JSON \(line"):
        install_hooks(path)
    with pytest.raises(SettingsError):
        uninstall_hooks(path)
    assert path.read_text(encoding="utf-8") == broken
    assert not (tmp_path / "settings.json.bak").exists()
    assert hooks_status(path).error
    path.write_text('{"hooks": []}', encoding="utf-8")
    with pytest.raises(SettingsError, match="not an object"):
        install_hooks(path)


def test_uninstall_keeps_other_hooks_in_a_shared_group(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"hooks": {"Stop": [{"matcher": "", "hooks": [
        {"type": "command", "command": "notify-send done"},
        {"type": "command", "command": "/opt/venv/bin/threadback hook refresh"},
    ]}]}}, indent=2), encoding="utf-8")
    assert "Stop" in hooks_status(path).installed
    assert "Stop" not in install_hooks(path).added
    uninstall_hooks(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["hooks"]["Stop"] == [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}]


def test_which_commands_are_ours():
    assert is_threadback_command("threadback hook prompt")
    assert is_threadback_command("/home/a/.venv/bin/threadback hook refresh")
    assert not is_threadback_command("threadback search foo")
    assert not is_threadback_command("echo threadback hook prompt")
    assert not is_threadback_command("my-threadback hook prompt")
    assert not is_threadback_command(None)


def test_user_settings_honours_claude_config_dir(tmp_path):
    assert user_settings_path({"CLAUDE_CONFIG_DIR": str(tmp_path)}) == tmp_path / "settings.json"
    assert user_settings_path({}).parts[-2:] == (".claude", "settings.json")


def test_cli_install_status_uninstall(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.chdir(tmp_path)
    assert main(["hooks", "install", "--claude-code", "--user"]) == exits.OK
    assert "added Threadback hooks" in capsys.readouterr().out
    assert main(["hooks", "install", "--claude-code"]) == exits.OK
    assert "already installed" in capsys.readouterr().out
    assert main(["hooks", "status", "--claude-code", "--json"]) == exits.OK
    user, project = json.loads(capsys.readouterr().out)
    assert set(user["installed"]) == set(HOOK_EVENTS) and project["exists"] is False
    assert main(["hooks", "install", "--claude-code", "--project"]) == exits.OK
    assert (tmp_path / ".claude" / "settings.json").exists()
    capsys.readouterr()
    assert main(["hooks", "uninstall", "--claude-code", "--user"]) == exits.OK
    assert "removed" in capsys.readouterr().out
    assert main(["hooks", "status", "--user"]) == exits.OK
    assert "not installed" in capsys.readouterr().out
    (tmp_path / "bad.json").write_text("{nope", encoding="utf-8")
    assert main(["hooks", "install", "--claude-code", "--settings", str(tmp_path / "bad.json")]) == exits.REFUSED
    assert "not valid JSON" in capsys.readouterr().err
    assert main(["hooks", "install", "--pi"]) == exits.USAGE
    assert "hooks print --pi" in capsys.readouterr().err


@pytest.mark.parametrize("agent,where", [("--codex", ".codex/AGENTS.md"), ("--pi", ".pi/agent/AGENTS.md")])
def test_hooks_print_routing_block(capsys, agent, where):
    assert main(["hooks", "print", agent]) == exits.OK
    out = capsys.readouterr().out
    assert out.startswith("## Past sessions and memory: Threadback")
    assert 'threadback search "<words>"' in out and "--exclude-session" in out and where in out


def test_hooks_print_claude_code_json(capsys):
    assert main(["hooks", "print", "--claude-code"]) == exits.OK
    data = json.loads(capsys.readouterr().out)
    assert set(data["hooks"]) == set(HOOK_EVENTS)


def test_install_denies_the_approval_commands_and_uninstall_removes_exactly_those(tmp_path):
    from indexer.agents.settings import default_deny_rules
    from indexer.rules import key_path

    path = tmp_path / "settings.json"
    mine = {"permissions": {"deny": ["Bash(rm -rf *)"], "allow": ["Bash(git status)"]}}
    original = json.dumps(mine, indent=2) + "\n"
    path.write_text(original, encoding="utf-8")
    change = install_hooks(path)
    rules = default_deny_rules()
    assert change.denied == rules
    deny = json.loads(path.read_text(encoding="utf-8"))["permissions"]["deny"]
    assert deny[0] == "Bash(rm -rf *)" and deny[1:] == list(rules)
    assert "Bash(threadback rules review *)" in rules and "Bash(threadback memory allow *)" in rules
    assert f"Read(/{key_path().parent.resolve()}/**)" in rules  # // = an absolute path
    assert hooks_status(path).denied == rules
    assert not install_hooks(path).changed  # idempotent
    undone = uninstall_hooks(path)
    assert undone.undenied == rules
    assert path.read_text(encoding="utf-8") == original


def test_hooks_install_cli_says_what_it_denies(tmp_path, capsys):
    path = tmp_path / "settings.json"
    assert main(["hooks", "install", "--settings", str(path)]) == exits.OK
    out = capsys.readouterr().out
    assert "denied to the agent" in out and "threadback rules review" in out
    assert main(["hooks", "status", "--claude-code", "--settings", str(path), "--json"]) == exits.OK
    [status] = json.loads(capsys.readouterr().out)
    assert "Bash(threadback rules review *)" in status["denied"] and len(status["denied"]) == 4
    assert main(["hooks", "status", "--claude-code", "--settings", str(path)]) == exits.OK
    assert "approval commands denied (4 rules)" in capsys.readouterr().out
    assert main(["hooks", "uninstall", "--settings", str(path)]) == exits.OK
    assert "removed Threadback's deny rules" in capsys.readouterr().out
    assert main(["hooks", "status", "--claude-code", "--settings", str(path), "--json"]) == exits.OK
    assert json.loads(capsys.readouterr().out)[0]["denied"] == []
    assert json.loads(path.read_text(encoding="utf-8")) == {}

"""Where logs are looked for: defaults from the agents' own variables, the config file, flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer import ConfigError, load_roots


def test_defaults_follow_the_agents_variables(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi"))
    roots = load_roots(config_file=tmp_path / "none.toml").roots
    assert roots["claude-code"] == (tmp_path / "claude" / "projects",)
    assert roots["codex"] == (tmp_path / "codex" / "sessions", tmp_path / "codex" / "archived_sessions")
    assert roots["pi"] == (tmp_path / "pi" / "sessions",)


def test_gemini_cli_home_replaces_the_home_folder_as_gemini_cli_reads_it(tmp_path, monkeypatch):
    """gemini-cli's ``homedir()`` (packages/core/src/utils/paths.ts) returns ``$GEMINI_CLI_HOME``
    when set, and its global folder is ``<homedir>/.gemini``: the chats are under
    ``$GEMINI_CLI_HOME/.gemini/tmp``, not ``$GEMINI_CLI_HOME/tmp``."""
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "profile"))
    assert load_roots(config_file=tmp_path / "none.toml").roots["gemini"] == (tmp_path / "profile" / ".gemini" / "tmp",)
    monkeypatch.delenv("GEMINI_CLI_HOME")
    assert load_roots(config_file=tmp_path / "none.toml").roots["gemini"] == (Path.home() / ".gemini" / "tmp",)


def test_config_file_then_flags_replace_per_agent(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    config = tmp_path / "config.toml"
    config.write_text('[roots]\nclaude-code = ["/a/projects", "/b/projects"]\npi = "/p/sessions"\n')
    roots = load_roots({"pi": ["/flag/pi"]}, config_file=config).roots
    assert roots["claude-code"] == (Path("/a/projects"), Path("/b/projects"))
    assert roots["pi"] == (Path("/flag/pi"),)
    assert roots["codex"][0] == tmp_path / "codex" / "sessions"  # untouched default


def test_a_broken_config_file_says_where(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[roots\nclaude-code = 3")
    with pytest.raises(ConfigError, match="config.toml"):
        load_roots(config_file=config)
    config.write_text('[roots]\nwindsurf = ["/x"]\n')
    with pytest.raises(ConfigError, match="unknown agent 'windsurf'"):
        load_roots(config_file=config)

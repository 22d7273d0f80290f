"""A third-party agent registered through the ``threadback.agents`` entry point group, as
docs/agents.md's worked example builds it (tests/data/plugin_agent: the package and its
installed metadata): found under its own home, indexed, searched, resumed, listed by
``doctor``, and known to the approval guard. Real subprocesses, the package on ``PYTHONPATH``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from cli_process import REPO, cli_env, threadback

PLUGIN = Path(__file__).resolve().parents[2] / "data" / "plugin_agent"


def env_for(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    if not home.exists():
        shutil.copytree(PLUGIN / "home", home)
    return {"PYTHONPATH": f"{REPO}:{PLUGIN}", "HOME": str(home), "THREADBACK_HOME": str(tmp_path / "tb"),
            "THREADBACK_CONFIG": str(tmp_path / "none.toml")}


def test_a_plugin_agents_sessions_are_indexed_searched_and_resumed(tmp_path: Path):
    env = env_for(tmp_path)
    indexed = threadback("index", **env)
    assert indexed.returncode == 0 and "Traceback" not in indexed.stderr, indexed.stderr
    found = threadback("search", "staging certificate agent:notes-agent", "--json", **env)
    assert found.returncode == 0 and "n-001" in found.stdout, found.stderr
    resumed = threadback("resume", "n-001", **env)
    assert resumed.stdout.strip() == "cd /home/dev/infra && notes-agent --continue n-001", resumed.stderr
    doctor = json.loads(threadback("doctor", "--json", **env).stdout)
    [notes] = [entry for entry in doctor if entry["agent"] == "notes-agent"]
    assert notes["logs"] == 1 and notes["retention_days"] is None


def test_the_approval_guard_knows_a_plugin_agents_processes(tmp_path: Path):
    probe = ("from indexer.rules.review import agent_of; "
             "print(agent_of('notes-agent', None, ['notes-agent'])); "
             "print(agent_of('node', '/usr/bin/node', ['node', '/opt/notes-agent-cli/bin.js']))")
    done = subprocess.run([sys.executable, "-c", probe], env=cli_env(**env_for(tmp_path)), capture_output=True,
                          text=True, timeout=60, cwd=REPO)
    assert done.stdout.splitlines() == ["('notes-agent', 'Notes agent')", "('notes-agent-cli', 'Notes agent')"], done.stderr


def test_a_broken_plugin_is_named_and_skipped(tmp_path: Path):
    broken = tmp_path / "broken"
    (broken / "bad-1.0.dist-info").mkdir(parents=True)
    (broken / "bad-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: bad\nVersion: 1.0\n")
    (broken / "bad-1.0.dist-info" / "entry_points.txt").write_text("[threadback.agents]\nbad = no_such_module:AGENT\n")
    env = {**env_for(tmp_path), "PYTHONPATH": f"{REPO}:{PLUGIN}:{broken}"}
    probe = ("from indexer.sources import PLUGIN_PROBLEMS, plugin_agents; "
             "print(sorted(plugin_agents())); print(PLUGIN_PROBLEMS)")
    done = subprocess.run([sys.executable, "-c", probe], env=cli_env(**env), capture_output=True, text=True,
                          timeout=60, cwd=REPO)
    lines = done.stdout.splitlines()
    assert lines[0] == "['notes-agent']" and "'bad' cannot be loaded: ModuleNotFoundError" in lines[1], done.stderr
    indexed = threadback("index", **env)
    assert indexed.returncode == 0 and "agent plugin 'bad' cannot be loaded" in indexed.stderr, indexed.stderr

"""``threadback --demo COMMAND``: every command on the bundled demo sessions and memory, in an
index of their own, as a person trying the tool types it (real subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    """A person with no agent logs and no index: a fresh home and data folder."""
    home = tmp_path / "home"
    home.mkdir()
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("THREADBACK_", "XDG_", "CLAUDE_", "CODEX_"))}
    return {**keep, "HOME": str(home), "THREADBACK_HOME": str(tmp_path / "data"), "PYTHONIOENCODING": "utf-8"}


def threadback(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui.cli", *args], capture_output=True, text=True, env=env,
                          timeout=120, stdin=subprocess.DEVNULL)


def test_a_first_search_with_demo_indexes_the_samples_and_answers(env, tmp_path):
    done = threadback(env, "--demo", "search", "migration", "--json")
    assert done.returncode == 0, done.stderr
    assert "indexing the demo sessions" in done.stderr
    hits = json.loads(done.stdout)["hits"]
    assert hits and all("migration" in json.dumps(hit).lower() for hit in hits[:3])
    assert (tmp_path / "data" / "demo.sqlite3").exists()
    assert not (tmp_path / "data" / "index.sqlite3").exists()  # the person's own index is not touched

    again = threadback(env, "--demo", "search", "migration")
    assert again.returncode == 0 and "indexing" not in again.stderr and "migration" in again.stdout.lower()


def test_without_demo_the_same_search_names_the_missing_index(env):
    threadback(env, "--demo", "index", "-q")
    done = threadback(env, "search", "migration")
    assert done.returncode != 0 and "run `threadback index` first" in done.stderr


def test_demo_index_and_sessions_read_the_bundled_logs(env):
    done = threadback(env, "--demo", "index", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["sessions"] > 0 and summary["files_new"] > 0
    listed = threadback(env, "--demo", "sessions")
    assert listed.returncode == 0, listed.stderr
    agents = {line.split()[2] for line in listed.stdout.splitlines()}  # date, time, agent, ...
    assert {"claude-code", "codex", "pi"} <= agents


def test_demo_memory_is_its_own_copy(env, tmp_path):
    shown = threadback(env, "--demo", "memory", "list")
    assert shown.returncode == 0, shown.stderr
    assert str(tmp_path / "data" / "demo-memory") in shown.stdout
    own = threadback(env, "memory", "list")
    assert str(tmp_path / "data" / "demo-memory") not in own.stdout


def test_trying_the_demo_is_not_counted_as_use(env):
    """``threadback usage`` tells how agents and the person used Threadback on their history."""
    assert threadback(env, "--demo", "search", "migration").returncode == 0
    assert threadback(env, "--demo", "resume", "29ccd257").returncode == 0
    assert threadback(env, "--demo", "context").returncode == 0
    report = threadback(env, "usage", "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["calls"] == 0


def test_demo_never_opens_the_persons_index_even_when_one_is_named(env, tmp_path):
    """As the app's ``--demo`` always did: the demo's own index, whatever ``--db`` says."""
    mine = tmp_path / "mine.sqlite3"
    done = threadback(env, "--demo", "--db", str(mine), "search", "migration")
    assert done.returncode == 0, done.stderr
    assert not mine.exists() and (tmp_path / "data" / "demo.sqlite3").exists()

"""A project's memory folder counts only once the user allows it (the direnv model)."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from indexer.agents.context import FolderContext, material_from, render_context, run_all
from indexer.config import PROJECT, MemoryFolder, resolve_memory_folder
from indexer.memory.trust import (
    ALLOWED,
    CHANGED,
    NOT_ALLOWED,
    TRUSTED,
    FolderNotAllowable,
    allow_folder,
    allowed_folders,
    disallow_folder,
    folder_summary,
    folder_trust,
)
from indexer.rules import RuleStore

from conftest import APPROVAL_PASSPHRASE
from test_rules_cli import PASSPHRASE_PROMPT, PtyChild, REPO, child_env

NOW = datetime(2026, 7, 1, tzinfo=timezone.utc)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with a memory folder: one approved rule (by this user), a fact."""
    repo = tmp_path / "repo"
    memory = repo / "memory"
    memory.mkdir(parents=True)
    (memory / "fact.yml").write_text("editor: helix\n", encoding="utf-8")
    store = RuleStore(memory)
    rule = store.propose("Run the tests before committing.", now=1.0).rule
    store.approve(rule.id, rule.text, now=2.0, approver="alice")
    return repo


def context_in(repo: Path) -> str:
    folder = FolderContext(None, repo)
    return render_context(material_from(run_all(folder.pieces(now=NOW))))


def trust_of(repo: Path) -> str:
    return folder_trust(resolve_memory_folder(None, repo, {})).state


def test_a_project_folder_is_left_out_until_allowed(project: Path) -> None:
    assert trust_of(project) == NOT_ALLOWED
    text = context_in(project)
    assert "Run the tests" not in text and "editor: helix" not in text
    assert f"Project memory folder {project / 'memory'} left out: not allowed yet" in text
    allow_folder(project / "memory", now=3.0)
    assert trust_of(project) == ALLOWED
    text = context_in(project)
    assert "Run the tests" in text.split("<memory")[0] and "editor: helix" in text
    assert "left out" not in text


def test_a_change_to_rules_needs_another_allow_but_memory_is_still_read(project: Path) -> None:
    allow_folder(project / "memory", now=3.0)
    rules = project / "memory" / "rules.jsonl"
    rules.write_text(rules.read_text() + '{"id": "r-1", "text": "x", "status": "pending"}\n')
    assert trust_of(project) == CHANGED
    text = context_in(project)
    assert "Run the tests" not in text and "editor: helix" in text  # facts read, as reference
    assert "rules.jsonl changed since it was allowed" in text
    allow_folder(project / "memory", now=4.0)
    assert "Run the tests" in context_in(project)


def test_threadbacks_own_writes_carry_the_allow_forward(project: Path) -> None:
    allow_folder(project / "memory", now=3.0)
    store = RuleStore(project / "memory")
    rule = store.propose("Prefer uv.", now=5.0).rule
    store.approve(rule.id, rule.text, now=6.0, approver="alice")
    assert trust_of(project) == ALLOWED
    assert "Prefer uv." in context_in(project)


def test_facts_changing_do_not_revoke_the_allow(project: Path) -> None:
    allow_folder(project / "memory", now=3.0)
    (project / "memory" / "fact.yml").write_text("editor: vim\n")
    assert trust_of(project) == ALLOWED


def test_folders_the_user_named_are_trusted(project: Path) -> None:
    named = resolve_memory_folder(project / "memory", project, {})
    assert folder_trust(named).state == TRUSTED
    env = resolve_memory_folder(None, project, {"THREADBACK_MEMORY_DIR": str(project / "memory")})
    assert folder_trust(env).state == TRUSTED


def test_a_symlink_out_of_the_folder_is_never_read_nor_allowed(project: Path, tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n")
    (project / "memory" / "scratchpad.md").symlink_to(secret)
    folder = MemoryFolder(project / "memory", "", PROJECT)
    with pytest.raises(FolderNotAllowable, match="outside the folder"):
        allow_folder(folder.path, now=1.0)
    trust = folder_trust(folder)
    assert trust.state == NOT_ALLOWED and "outside the folder" in (trust.note() or "")
    assert "OPENSSH" not in context_in(project)


def test_disallow_and_list(project: Path) -> None:
    allow_folder(project / "memory", now=3.0)
    assert [p for p, _ in allowed_folders()] == [(project / "memory").resolve()]
    assert disallow_folder(project / "memory")
    assert not disallow_folder(project / "memory")
    assert trust_of(project) == NOT_ALLOWED


def test_the_summary_lists_what_would_count(project: Path) -> None:
    summary = folder_summary(project / "memory")
    assert "rules.jsonl: 1 rules, 1 marked approved" in summary
    assert "  approved? Run the tests before committing." in summary
    assert "fact.yml: 1 lines" in summary


# --- the command, at a terminal ------------------------------------------------------------------


def test_memory_allow_at_a_terminal_lists_then_allows(project: Path, tmp_path: Path, monkeypatch) -> None:
    env = child_env(tmp_path)
    monkeypatch.setenv("THREADBACK_HOME", env["THREADBACK_HOME"])
    child = PtyChild(["memory", "allow", str(project / "memory")], env)
    out = child.read_until("Allow this folder? [y/N]: ")
    assert "approved? Run the tests before committing." in out and "fact.yml (14 bytes)" in out
    child.send("y")
    child.read_until(PASSPHRASE_PROMPT)
    child.send(APPROVAL_PASSPHRASE)
    assert child.wait() == 0
    assert trust_of(project) == ALLOWED


def test_memory_allow_refuses_a_pipe(project: Path, tmp_path: Path, monkeypatch) -> None:
    env = child_env(tmp_path)
    monkeypatch.setenv("THREADBACK_HOME", env["THREADBACK_HOME"])
    done = subprocess.run([sys.executable, "-m", "tui.cli", "memory", "allow", str(project / "memory")],
                          input="y\n", capture_output=True, text=True, cwd=REPO, env=env, timeout=30)
    assert done.returncode == 5 and "interactive terminal" in done.stderr
    assert trust_of(project) == NOT_ALLOWED


def test_memory_allow_refuses_under_an_agent(project: Path, tmp_path: Path, monkeypatch) -> None:
    env = child_env(tmp_path)
    monkeypatch.setenv("THREADBACK_HOME", env["THREADBACK_HOME"])
    agent = tmp_path / "bin" / "claude"
    agent.parent.mkdir()
    agent.write_text('#!/bin/sh\n/bin/sh -c "$1"\n')
    agent.chmod(0o755)
    attack = (f"printf 'y\\n' | script -qec \"{sys.executable} -m tui.cli memory allow "
              f"{project / 'memory'}\" /dev/null")
    done = subprocess.run([str(agent), attack], capture_output=True, text=True, cwd=REPO, env=env, timeout=60)
    assert "coding agent" in done.stdout + done.stderr and "claude" in done.stdout + done.stderr
    assert trust_of(project) == NOT_ALLOWED
    listed = subprocess.run([sys.executable, "-m", "tui.cli", "memory", "allowed"], capture_output=True,
                            text=True, cwd=REPO, env=env, timeout=30)
    assert "no memory folders allowed" in listed.stdout

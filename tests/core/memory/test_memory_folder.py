"""One memory folder for everything: the memory CLI, the rules CLI, ``context`` and the app choose
it by the same rule (``indexer.config.resolve_memory_dir``).

The bug this guards against: a project whose ``memory/`` held only ``rules.jsonl`` made the
rules CLI use ``./memory`` and the memory store the global folder, so ``context`` read memory
from one folder and rules from the other.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer.config import MEMORY_FOLDER_FILES, resolve_memory_dir
from indexer.memory import MemoryStore
from indexer.memory.trust import allow_folder
from indexer.rules import DECISIONS_FILE, RULES_FILE, RuleStore
from tui.cli.main import main
from tui_fixtures import app_for

FIXED = 1782864000.0


@pytest.fixture
def project_with_rules_only(tmp_path, monkeypatch, private_threadback_home) -> Path:
    """A project whose memory/ holds one proposed rule and nothing else; cwd is the project."""
    project = tmp_path / "project"
    folder = project / "memory"
    RuleStore(folder).propose("Run the tests before every commit.", now=FIXED, agent="codex")
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) == sorted(
        [RULES_FILE, DECISIONS_FILE])
    monkeypatch.chdir(project)
    return folder


def test_the_folder_rule_knows_every_file_kept_there():
    kept = {MemoryStore.FACT_FILE, MemoryStore.EPISODIC_FILE, MemoryStore.SCRATCHPAD_FILE,
            MemoryStore.ASSOCIATIONS_FILE, MemoryStore.RETRIEVALS_FILE, RULES_FILE, DECISIONS_FILE}
    assert kept == set(MEMORY_FOLDER_FILES)


def test_rules_alone_make_the_project_folder_for_every_command(project_with_rules_only, capsys):
    folder = project_with_rules_only
    assert resolve_memory_dir()[0] == folder

    assert main(["memory", "list", "--json"]) in (0, 1)  # nothing in the tiers yet
    assert Path(json.loads(capsys.readouterr().out)["folder"]) == folder

    assert main(["rules", "list", "--json"]) == 0
    assert [r["text"] for r in json.loads(capsys.readouterr().out)] == ["Run the tests before every commit."]

    assert main(["context", "--json"]) == 0  # a project folder counts once the user allows it
    context = json.loads(capsys.readouterr().out)
    assert Path(context["memory_dir"]) != folder and "not allowed yet" in context["notes"][0]
    allow_folder(folder, now=0.0)
    assert main(["context", "--json"]) == 0
    context = json.loads(capsys.readouterr().out)
    assert Path(context["memory_dir"]) == Path(context["rules_dir"]) == folder


def test_the_app_opens_the_same_folder(project_with_rules_only, corpus_index_path):
    app = app_for(corpus_index_path)
    assert app.context.memory_store().folder == project_with_rules_only
    assert app.context.rule_store().memory_dir == project_with_rules_only

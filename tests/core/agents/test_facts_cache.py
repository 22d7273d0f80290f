"""The session-start hook reuses the fact lines it made last time when fact.yml holds the same
text (``indexer.agents.facts_cache``): the same context, without loading the YAML library."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from indexer.agents import facts_cache
from indexer.agents.context import FolderContext, material_from, render_context
from test_startup_imports import imported_modules, loaded
from cli_process import cli_env

NOW = datetime(2026, 4, 2, 9, 0, tzinfo=timezone.utc)
FACTS = "editor: helix\nlanguage: en  # a comment\ntools:\n  tests: pytest -q\n"


@pytest.fixture
def memory(tmp_path, monkeypatch):
    monkeypatch.setenv("THREADBACK_HOME", str(tmp_path / "home"))
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "fact.yml").write_text(FACTS, encoding="utf-8")
    return folder


def context_text(folder, *, cache_facts: bool) -> str:
    pieces = FolderContext(folder, None).pieces(now=NOW, cache_facts=cache_facts)
    return render_context(material_from({name: work() for name, work in pieces}))


def test_the_cached_lines_are_the_lines(memory):
    plain = context_text(memory, cache_facts=False)
    assert "editor: helix" in plain and not facts_cache.cache_path().exists()  # only the hook caches
    assert context_text(memory, cache_facts=True) == plain  # made, and kept
    assert facts_cache.cached_lines(memory / "fact.yml") is not None
    assert context_text(memory, cache_facts=True) == plain  # reused


def test_a_changed_fact_file_is_read_again(memory):
    context_text(memory, cache_facts=True)
    (memory / "fact.yml").write_text(FACTS.replace("helix", "vim"), encoding="utf-8")
    assert facts_cache.cached_lines(memory / "fact.yml") is None
    text = context_text(memory, cache_facts=True)
    assert "editor: vim" in text and "helix" not in text


@pytest.mark.parametrize("damage", ["", "{not json", json.dumps({"format": 1, "codes": {"1:2": {}}}),
                                    json.dumps({"format": 1, "codes": []}), json.dumps({"format": 0}), "\udcff"])
def test_a_damaged_or_foreign_cache_is_made_again(memory, damage):
    expected = context_text(memory, cache_facts=False)
    path = facts_cache.cache_path()
    path.parent.mkdir(parents=True)
    path.write_text(damage, encoding="utf-8", errors="surrogateescape")
    assert context_text(memory, cache_facts=True) == expected
    assert json.loads(path.read_text(encoding="utf-8"))["codes"]  # replaced whole, and valid


def test_another_version_of_the_code_keeps_its_own_lines(memory, monkeypatch):
    """A new version never reuses an older one's lines; two installs sharing a data folder
    (the app from a checkout, the hook from a package) keep each its own."""
    context_text(memory, cache_facts=True)
    real = facts_cache._code_stamp()
    monkeypatch.setattr(facts_cache, "_code_stamp", lambda: [[0, 0]])
    assert facts_cache.cached_lines(memory / "fact.yml") is None
    context_text(memory, cache_facts=True)
    assert facts_cache.cached_lines(memory / "fact.yml") is not None
    monkeypatch.setattr(facts_cache, "_code_stamp", lambda: real)
    assert facts_cache.cached_lines(memory / "fact.yml") is not None


def test_a_broken_fact_file_is_reported_every_time_and_not_kept(memory):
    (memory / "fact.yml").write_text("editor: [helix\n", encoding="utf-8")
    for _ in range(2):
        assert "fact.yml could not be read" in context_text(memory, cache_facts=True)
    assert not facts_cache.cache_path().exists()


def test_the_second_session_start_loads_no_yaml(tmp_path):
    """Through the CLI: the first session start parses fact.yml; the next, with the same file,
    prints the same context without loading ruamel."""
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "fact.yml").write_text(FACTS, encoding="utf-8")
    env = cli_env(THREADBACK_DB=str(tmp_path / "none.sqlite3"), THREADBACK_HOME=str(tmp_path / "home"),
                  HOME=str(tmp_path / "home"), THREADBACK_MEMORY_DIR=str(folder))
    event = json.dumps({"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "SessionStart", "source": "startup"})
    first, out1 = imported_modules(["hook", "session-start", "--text"], env, stdin=event)
    second, out2 = imported_modules(["hook", "session-start", "--text"], env, stdin=event)
    assert "editor: helix" in out1 and out2 == out1
    assert loaded(first, ("ruamel",)) and loaded(second, ("ruamel",)) == []

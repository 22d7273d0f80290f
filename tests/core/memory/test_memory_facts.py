"""fact.yml: round-trip, archive/restore as text edits, validation, and on-disk conflicts."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from indexer.memory import (
    ChangedOnDiskError,
    FactFileError,
    MemoryNotFoundError,
    MemoryStore,
    validate_fact_text,
)

NOW = datetime(2026, 4, 2, 9, 15, tzinfo=timezone.utc)

FACTS = """\
# Who I am (read by every agent session)
name: Alice  # what to call me
# Preferences

language: zh-TW
tools:
- uv   # fast
- ruff
# - black
stats: "R, not Python"
editor:
    name: helix
    theme: dark
unset:
script: |
  echo hi
  # a shell comment, part of the value
nested:
  list:
    - a
  "q k": 'v'
# trailing comment
last: 1"""  # no final newline on purpose

KEYS = ["name", "language", "tools", "stats", "editor", "unset", "script", "nested", "last"]


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "fact.yml").write_text(FACTS, encoding="utf-8")
    return tmp_path


def test_facts_read_in_file_order_with_values_and_lines(folder):
    facts = MemoryStore(folder).facts()
    assert [f.key for f in facts] == KEYS
    by_key = {f.key: f for f in facts}
    assert by_key["name"].value == "Alice" and by_key["name"].line == 2
    assert by_key["tools"].value == ["uv", "ruff"]
    assert by_key["editor"].value == {"name": "helix", "theme": "dark"}
    assert by_key["unset"].value is None
    assert by_key["script"].value == "echo hi\n# a shell comment, part of the value\n"


@pytest.mark.parametrize("key", KEYS)
def test_archive_changes_only_that_fact_and_restore_gives_back_the_same_bytes(folder, key):
    store = MemoryStore(folder)
    before = store.fact(key)
    lines_before = FACTS.splitlines()

    archived = store.archive_fact(key, NOW)
    assert archived.archived and archived.archived_at == "2026-04-02T09:15:00+00:00"
    assert archived.value == before.value
    text = (folder / "fact.yml").read_text(encoding="utf-8")
    # Every comment line survives, and every other fact's lines are untouched.
    for line in lines_before:
        if line.strip().startswith("#"):
            assert line.strip() in text
    assert f"{key}:\n  archived: true\n  archived_at: '2026-04-02T09:15:00+00:00'\n  value:" in text
    assert key not in [f.key for f in MemoryStore(folder).facts()]  # hidden by default
    assert key in [f.key for f in MemoryStore(folder).facts(include_archived=True)]
    assert (folder / "fact.yml.bak").read_text(encoding="utf-8") == FACTS

    restored = MemoryStore(folder).restore_fact(key)
    assert not restored.archived and restored.value == before.value
    assert (folder / "fact.yml").read_text(encoding="utf-8") == FACTS


def test_archived_scalar_keeps_its_end_of_line_comment(folder):
    MemoryStore(folder).archive_fact("name", NOW)
    text = (folder / "fact.yml").read_text(encoding="utf-8")
    assert "  value: Alice  # what to call me\n# Preferences\n\nlanguage: zh-TW\n" in text
    assert text.startswith("# Who I am (read by every agent session)\nname:\n")


def test_unknown_key_is_not_found(folder):
    with pytest.raises(MemoryNotFoundError):
        MemoryStore(folder).archive_fact("nope", NOW)
    assert (folder / "fact.yml").read_text(encoding="utf-8") == FACTS


def test_validate_reports_line_and_column():
    issues = validate_fact_text("name: Alice\nlist: [a, b\nother: 1\n")
    assert issues and issues[0].line >= 2 and issues[0].column >= 1
    issues = validate_fact_text("a: 1\nb:\tx: y\n")
    assert issues
    assert validate_fact_text("a: 1\na: 2\n")[0].line == 2  # duplicate key
    assert validate_fact_text("- just\n- a list\n")[0].message.startswith("fact.yml must be")
    assert validate_fact_text("") == []
    assert validate_fact_text("# only a comment\n") == []


def test_broken_fact_file_gives_line_and_column_and_writes_nothing(tmp_path):
    broken = "name: Alice\nlanguage: [zh-TW\nlast: 1\n"
    (tmp_path / "fact.yml").write_text(broken, encoding="utf-8")
    store = MemoryStore(tmp_path)
    with pytest.raises(FactFileError) as err:
        store.facts()
    issue = err.value.issues[0]
    assert (issue.line, issue.column) == (3, 5)  # where the flow sequence went wrong
    assert "fact.yml:3:5:" in str(err.value)
    with pytest.raises(FactFileError):
        store.archive_fact("name", NOW)
    with pytest.raises(FactFileError):
        store.save_fact_text("name: [oops\n")
    assert (tmp_path / "fact.yml").read_text(encoding="utf-8") == broken
    assert not (tmp_path / "fact.yml.bak").exists()
    assert any(p.path.name == "fact.yml" and p.line == 3 for p in store.problems())
    # Other tiers still work, and search skips the broken file instead of failing.
    assert store.search("Alice", NOW) == []
    # Saving a fixed text is allowed (the TUI's editor fixes a broken file this way).
    store.save_fact_text("name: Alice\nlanguage: zh-TW\n")
    assert [f.key for f in store.facts()] == ["name", "language"]
    assert (tmp_path / "fact.yml.bak").read_text(encoding="utf-8") == broken


def test_save_text_refuses_when_file_changed_on_disk(folder):
    store = MemoryStore(folder)
    assert store.fact_text() == FACTS
    edited_elsewhere = FACTS + "\nnew: fact\n"
    (folder / "fact.yml").write_text(edited_elsewhere, encoding="utf-8")
    with pytest.raises(ChangedOnDiskError):
        store.save_fact_text("name: Bob\n")  # a whole text edited from an old version
    assert (folder / "fact.yml").read_text(encoding="utf-8") == edited_elsewhere
    store.archive_fact("name", NOW)  # one key, by name: applied to the file as it is now
    assert "new: fact" in (folder / "fact.yml").read_text(encoding="utf-8")
    assert store.fact("name").archived


def test_four_space_and_crlf_files_keep_their_style(tmp_path):
    text = "a:\r\n    b: 1\r\n    c: [1, 2]\r\nz: 2\r\n"
    (tmp_path / "fact.yml").write_text(text, encoding="utf-8", newline="")
    store = MemoryStore(tmp_path)
    store.archive_fact("a", NOW)
    archived = (tmp_path / "fact.yml").read_bytes().decode()
    assert archived.endswith("z: 2\r\n") and "\n    archived: true\r\n" in archived
    store.restore_fact("a")
    assert (tmp_path / "fact.yml").read_bytes().decode() == text

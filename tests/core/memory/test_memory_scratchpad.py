"""scratchpad.md items, promote and finish-task end to end on real files."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from indexer.memory import (
    ChangedOnDiskError,
    EpisodicDraft,
    MemoryInputError,
    MemoryNotFoundError,
    MemoryStore,
)

NOW = datetime(2026, 4, 2, 9, 15, tzinfo=timezone.utc)

PAD = """\
# Current task: hook guard

- [ ] write the safety hook
- [x] reproduce the config deletion
* decided to block rm in hooks
  + nested bullet stays a bullet

```sh
- not an item (code)
```
---
Plain paragraph.
"""

EPISODIC = '{"id":"ep-00000001","summary":"old","tags":["safety","hook","config-file"]}\n'


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "scratchpad.md").write_text(PAD, encoding="utf-8")
    (tmp_path / "episodic.jsonl").write_text(EPISODIC, encoding="utf-8")
    return tmp_path


def test_items_are_checklists_and_bullets_outside_code(folder):
    items = MemoryStore(folder).scratchpad_items()
    assert [(i.line, i.kind, i.checked, i.text) for i in items] == [
        (3, "checklist", False, "write the safety hook"),
        (4, "checklist", True, "reproduce the config deletion"),
        (5, "bullet", False, "decided to block rm in hooks"),
        (6, "bullet", False, "nested bullet stays a bullet"),
    ]


def test_suggestion_guesses_type_and_tags(folder):
    store = MemoryStore(folder)
    s3 = store.suggest_promotion(3)
    assert (s3.summary, s3.type) == ("write the safety hook", "note")
    assert s3.tags == ("hook", "safety")  # known tags found in the text, most used first
    assert store.suggest_promotion(4).type == "milestone"
    # Every word of a tag must appear: "config" is there, "file" is not.
    assert store.suggest_promotion(4).tags == ()
    assert store.suggest_promotion(5).type == "decision"


def test_promote_appends_entry_and_marks_item(folder):
    store = MemoryStore(folder)
    entry = store.promote(3, NOW, EpisodicDraft(summary="write the safety hook", type="lesson",
                                                 lesson="hooks first", tags=("hook",),
                                                 importance=8))
    text = (folder / "scratchpad.md").read_text(encoding="utf-8")
    expected = PAD.replace("- [ ] write the safety hook",
                           f"- [x] write the safety hook (→ {entry.id})")
    assert text == expected
    assert (folder / "scratchpad.md.bak").read_text(encoding="utf-8") == PAD
    lines = (folder / "episodic.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines[0] == EPISODIC.strip()
    assert json.loads(lines[1]) == {"id": entry.id, "ts": "2026-04-02T09:15:00+00:00",
                                    "type": "lesson", "summary": "write the safety hook",
                                    "lesson": "hooks first", "tags": ["hook"], "importance": 8}
    reloaded = MemoryStore(folder).scratchpad_items()[0]
    assert reloaded.promoted_to == entry.id and reloaded.text == "write the safety hook"
    with pytest.raises(MemoryInputError):
        MemoryStore(folder).promote(3, NOW)  # already promoted


def test_promote_bullet_with_suggestion_and_remove(folder):
    store = MemoryStore(folder)
    entry = store.promote(5, NOW, remove=True)
    assert entry.type == "decision" and entry.summary == "decided to block rm in hooks"
    assert entry.tags == ("hook",)
    text = (folder / "scratchpad.md").read_text(encoding="utf-8")
    assert text == PAD.replace("* decided to block rm in hooks\n", "")
    with pytest.raises(MemoryNotFoundError):
        store.promote(2, NOW)  # a blank line is not an item


def test_promote_refuses_when_scratchpad_changed_and_writes_nothing(folder):
    store = MemoryStore(folder)
    store.scratchpad_items()
    (folder / "scratchpad.md").write_text(PAD + "- [ ] added in an editor\n", encoding="utf-8")
    with pytest.raises(ChangedOnDiskError):
        store.promote(3, NOW)
    assert (folder / "episodic.jsonl").read_text(encoding="utf-8") == EPISODIC
    assert (folder / "scratchpad.md").read_text(encoding="utf-8").endswith("added in an editor\n")


def test_finish_task_promotes_chosen_clears_the_rest_and_keeps_history(folder):
    store = MemoryStore(folder)
    result = store.finish_task({4: None, 5: EpisodicDraft(summary="block rm", type="decision")},
                               NOW)
    assert [e.summary for e in result.promoted] == ["reproduce the config deletion", "block rm"]
    assert [e.type for e in result.promoted] == ["milestone", "decision"]
    assert (folder / "scratchpad.md").read_text(encoding="utf-8") == ""
    assert (folder / "scratchpad.md.bak").read_text(encoding="utf-8") == PAD
    assert result.history_path == folder / ".history" / "scratchpad-20260402T091500Z.md"
    history = result.history_path.read_text(encoding="utf-8")
    a, b = (e.id for e in result.promoted)
    assert history == (PAD.replace("- [x] reproduce the config deletion",
                                   f"- [x] reproduce the config deletion (→ {a})")
                          .replace("* decided to block rm in hooks",
                                   f"* decided to block rm in hooks (→ {b})"))
    summaries = [e.summary for e in MemoryStore(folder).entries()]
    assert summaries == ["old", "reproduce the config deletion", "block rm"]
    # A second finish on the now-empty pad writes no new history file.
    assert MemoryStore(folder).finish_task([], NOW).history_path is None

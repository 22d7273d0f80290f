"""episodic.jsonl, associations.jsonl, retrievals.jsonl, strength, decay and search."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from indexer.memory import (
    EpisodicDraft,
    MemoryInputError,
    MemoryNotFoundError,
    MemoryStore,
    strength_of,
)
from indexer.memory.episodic import derived_id

NOW = datetime(2026, 4, 30, 9, 15, tzinfo=timezone(timedelta(hours=8)))

LINE1 = (
    '{"ts":"2026-04-02T09:15:00+08:00","type":"failure","summary":"AI 誤刪設定檔",'
    '"detail":"...","lesson":"建立 Hook 守門系統，禁止 rm 指令","tags":["safety","hook"]}'
)
LINE2 = ('{"summary": "chose uv", "custom": {"x": 1}, "id": "ep-00000002", "type": "decision", '
         '"ts": "2026-04-23T09:15:00+08:00", "importance": 8}')
BAD = '{"summary": "half a line"'
LINE4 = ('{"id":"ep-00000004","ts":"2025-04-30T09:15:00+08:00","type":"note",'
         '"summary":"old note","importance":2}')
EPISODIC = "\r\n".join([LINE1, LINE2]) + "\r\n" + BAD + "\n\n" + LINE4 + "\n"


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "episodic.jsonl").write_text(EPISODIC, encoding="utf-8", newline="")
    return tmp_path


def lines_of(folder):
    return (folder / "episodic.jsonl").read_bytes().decode().split("\n")


def test_entries_read_with_defaults_and_bad_line_reported(folder):
    store = MemoryStore(folder)
    entries = store.entries()
    assert [e.line for e in entries] == [1, 2, 5]
    first = entries[0]
    assert first.id == derived_id(1, LINE1) and not first.id_stored
    assert first.id.startswith("ep-") and len(first.id) == 11
    assert first.importance == 5 and first.tags == ("safety", "hook")
    assert entries[1].fields["custom"] == {"x": 1}
    problems = store.problems()
    assert [(p.path.name, p.line) for p in problems] == [("episodic.jsonl", 3)]
    assert "not valid JSON" in problems[0].message and problems[0].text == BAD


def test_write_keeps_untouched_lines_bytes_and_bad_lines_in_place(folder):
    store = MemoryStore(folder)
    derived = store.entries()[0].id
    entry = store.add(EpisodicDraft(summary="new one", type="lesson", tags=("hook",),
                                    importance=7), NOW)
    raw = lines_of(folder)
    # Line 1 lacked an id: it gets the id it was shown with, first, other keys in order.
    assert raw[0] == '{"id":"' + derived + '",' + LINE1[1:] + "\r"
    assert raw[1] == LINE2 + "\r"  # byte-for-byte, CRLF kept
    assert raw[2] == BAD  # kept verbatim in place
    assert raw[3] == ""
    assert raw[4] == LINE4
    assert json.loads(raw[5]) == {"id": entry.id, "ts": "2026-04-30T09:15:00+08:00",
                                  "type": "lesson", "summary": "new one", "tags": ["hook"],
                                  "importance": 7}
    assert raw[6] == ""  # file ends with a newline
    assert "importance" not in json.loads(raw[0])  # no default written into an old line
    assert MemoryStore(folder).entries()[0].id == derived  # the id is stable
    assert (folder / "episodic.jsonl.bak").read_bytes().decode() == EPISODIC


def test_archive_and_restore(folder):
    store = MemoryStore(folder)
    archived = store.archive_entry("ep-00000002", NOW)
    assert archived.archived and archived.archived_at == "2026-04-30T09:15:00+08:00"
    assert "ep-00000002" not in [e.id for e in store.entries()]
    assert "ep-00000002" in [e.id for e in store.entries(include_archived=True)]
    obj = json.loads(lines_of(folder)[1])
    assert list(obj) == ["summary", "custom", "id", "type", "ts", "importance",
                         "archived", "archived_at"]
    restored = MemoryStore(folder).restore_entry("ep-00000002", NOW)
    assert not restored.archived and restored.refreshed_at == "2026-04-30T09:15:00+08:00"
    assert list(json.loads(lines_of(folder)[1])) == ["summary", "custom", "id", "type", "ts",
                                                    "importance", "refreshed_at"]
    assert lines_of(folder)[2] == BAD
    with pytest.raises(MemoryNotFoundError):
        store.archive_entry("ep-missing", NOW)


def test_an_outside_edit_between_load_and_write_is_kept(folder):
    """Adding and archiving by id do not depend on what was loaded: under the folder's lock
    the file is read again, so another process's entry is kept, never overwritten."""
    store = MemoryStore(folder)
    store.entries()  # loaded
    edited = EPISODIC + '{"id":"ep-0000000e","summary":"added by a hook"}\n'
    (folder / "episodic.jsonl").write_text(edited, encoding="utf-8", newline="")
    store.archive_entry("ep-00000002", NOW)
    added = store.add(EpisodicDraft(summary="x"), NOW)
    text = (folder / "episodic.jsonl").read_bytes().decode()
    assert '"added by a hook"' in text and added.id in text
    assert store.entry("ep-00000002").archived and store.entry("ep-0000000e").summary == "added by a hook"


def test_bad_drafts_are_refused(folder):
    store = MemoryStore(folder)
    for draft in (EpisodicDraft(summary="  "), EpisodicDraft(summary="x", importance=11),
                  EpisodicDraft(summary="x", ts="yesterday-ish")):
        with pytest.raises(MemoryInputError):
            store.add(draft, NOW)
    assert (folder / "episodic.jsonl").read_bytes().decode() == EPISODIC


def test_strength_and_decayed_view_match_hand_computed_values(folder):
    store = MemoryStore(folder)
    store.link("ep-00000002", "ep-00000004", NOW)
    store.record_retrievals(["ep-00000002", "ep-00000002", "ep-00000004"], "q", NOW)
    first_id = store.entries()[0].id

    # LINE1: importance 5 (default), 0 retrievals, 0 links, ts exactly 4 weeks before NOW.
    b1 = store.breakdown(first_id, NOW)
    assert b1.weeks_since_ts == pytest.approx(4.0)
    assert b1.strength == pytest.approx(5 / 10 + 0 * 0.08 + 0 * 0.05 - 4 * 0.03)  # 0.38
    # LINE2: importance 8, 2 retrievals, 1 link, 1 week old.
    b2 = store.breakdown("ep-00000002", NOW)
    assert (b2.retrieval_count, b2.association_edges) == (2, 1)
    assert b2.strength == pytest.approx(0.8 + 0.16 + 0.05 - 0.03)  # 0.98
    # LINE4: importance 2, 1 retrieval, 1 link, 365 days = 52.142857 weeks old -> clamped 0.
    b4 = store.breakdown("ep-00000004", NOW)
    assert b4.weeks_since_ts == pytest.approx(365 / 7)
    assert b4.raw == pytest.approx(0.2 + 0.08 + 0.05 - (365 / 7) * 0.03)  # -1.2343
    assert b4.strength == 0.0
    assert b4.age_term == pytest.approx((365 / 7) * 0.03)

    assert [s.entry.id for s in store.scored(NOW)] == ["ep-00000002", first_id, "ep-00000004"]
    assert [s.entry.id for s in store.decayed(NOW)] == ["ep-00000004"]
    assert [s.entry.id for s in store.decayed(NOW, threshold=0.39)] == ["ep-00000004", first_id]
    assert store.decayed(NOW, threshold=0.0) == []

    # A future ts counts as 0 weeks; strength_of agrees with the breakdown.
    entry = store.add(EpisodicDraft(summary="later", importance=3,
                                    ts="2026-05-30T00:00:00+08:00"), NOW)
    assert strength_of(entry, NOW) == pytest.approx(0.3)
    assert store.breakdown(entry, NOW).weeks_since_ts == 0.0


def test_links_are_archived_not_deleted_and_unknown_lines_kept(folder):
    (folder / "associations.jsonl").write_text('{"note":"mine"}\nnot json\n', encoding="utf-8")
    store = MemoryStore(folder)
    first_id = store.entries()[0].id
    link = store.link(first_id, "ep-00000002", NOW, weight=0.7)
    assert (link.a, link.b, link.weight) == (first_id, "ep-00000002", 0.7)
    assert store.link("ep-00000002", first_id, NOW, weight=0.7) == link  # same pair, no dup
    assert store.breakdown(first_id, NOW).association_edges == 1
    store.unlink("ep-00000002", first_id, NOW)
    assert store.breakdown(first_id, NOW).association_edges == 0
    raw = (folder / "associations.jsonl").read_text(encoding="utf-8").split("\n")
    assert raw[:2] == ['{"note":"mine"}', "not json"]
    assert json.loads(raw[2])["archived"] is True
    assert [p.line for p in store.problems() if p.path.name == "associations.jsonl"] == [2]
    with pytest.raises(MemoryNotFoundError):
        store.link(first_id, "ep-nope", NOW)
    with pytest.raises(MemoryInputError):
        store.link(first_id, first_id, NOW)


def test_search_is_cjk_capable_typed_sorted_and_optionally_recorded(folder):
    (folder / "fact.yml").write_text("safety: 禁止 rm -rf\nname: Alice\n", encoding="utf-8")
    (folder / "scratchpad.md").write_text("# task\n- [ ] 檢查 hook 設定\n", encoding="utf-8")
    store = MemoryStore(folder)
    first_id = store.entries()[0].id

    hits = store.search("誤刪", NOW)
    assert [(h.kind, h.id) for h in hits] == [("episodic", first_id)]
    hits = store.search("hook OR 禁止", NOW)
    assert [h.kind for h in hits] == ["fact", "episodic", "scratchpad"]
    assert hits[2].id == "scratchpad:2"
    assert [h.id for h in store.search("-誤刪", NOW, tiers=["episodic"])] == [
        "ep-00000002", "ep-00000004"]  # strongest first
    assert store.search('"Hook 守門"', NOW)[0].id == first_id
    assert [h.id for h in store.search("since:2026-04-20", NOW)] == ["ep-00000002"]
    assert not (folder / "retrievals.jsonl").exists()  # not recorded unless asked

    store.search("hook", NOW, record=True)
    logged = [json.loads(x) for x in (folder / "retrievals.jsonl").read_text().splitlines()]
    assert logged == [{"ts": "2026-04-30T09:15:00+08:00", "id": first_id, "query": "hook"}]
    assert MemoryStore(folder).breakdown(first_id, NOW).retrieval_count == 1

    store.archive_entry(first_id, NOW)
    assert store.search("誤刪", NOW) == []
    assert store.search("誤刪", NOW, include_archived=True)[0].entry.archived

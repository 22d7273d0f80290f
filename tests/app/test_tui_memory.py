"""Pilot tests for the memory screen: each tab against real files in a temp folder."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import DataTable, Input, OptionList, SelectionList, Static, TextArea

from indexer.memory import EpisodicFilter, MemoryStore, strength_of
from indexer.memory.trust import allow_folder
from memory_rules_host import (
    FIXED_NOW,
    SAMPLE_FACTS,
    ScreenHost,
    fixed_clock,
    open_sample_memory,
)
from tui.screens.confirm import ConfirmScreen
from tui.screens.memory import MemoryScreen
from tui.widgets.memory_entry_form import MemoryEntryForm
from tui.widgets.memory_link_form import MemoryLinkForm
from tui.widgets.memory_pick_list import MemoryPickList
from tui.widgets.memory_strength_bar import strength_bar

SIZE = (120, 36)
WEEK = 7 * 86400


def plain(widget: Static) -> str:
    """What a Static shows, as text."""
    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(widget.content)
    return console.export_text()


def episodic_lines(folder: Path) -> list[dict]:
    out = []
    for line in (folder / "episodic.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "memory"


def host(folder: Path, tab: str = "fact", **kwargs) -> ScreenHost:
    store = open_sample_memory(folder)
    screen = MemoryScreen(store, now=fixed_clock, folder_label=lambda p: "sample/memory",
                          initial_tab=tab, **kwargs)
    return ScreenHost(screen)


def table(app: ScreenHost) -> DataTable:
    return app.screen.query_one("#episodic-table", DataTable)


def row_ids(app: ScreenHost) -> list[str]:
    t = table(app)
    return [str(t.coordinate_to_cell_key((i, 0)).row_key.value) for i in range(t.row_count)]


# --- pure pieces ---------------------------------------------------------------------------


def test_strength_bar_draws_the_value():
    assert strength_bar(0.62).plain == "████░░ 0.62"
    assert strength_bar(1.7).plain == "██████ 1.00"
    assert strength_bar(-0.3).plain == "░░░░░░ 0.00"


def test_filter_parses_type_tag_and_text():
    f = EpisodicFilter.parse('type:failure tag:hook "rm 指令" -docker')
    assert f.types == ("failure",)
    assert f.tags == ("hook",)
    assert f.text == '"rm 指令" -docker'


# --- header --------------------------------------------------------------------------------


async def test_header_names_the_folder_the_reason_and_the_bad_line(folder):
    app = host(folder)
    async with app.run_test(size=SIZE):
        header = plain(app.screen.query_one("#memory-folder", Static))
        assert "sample/memory" in header and "--memory-dir" in header
        problems = app.screen.query_one("#memory-problems", Static)
        assert problems.display
        assert "episodic.jsonl line 4" in plain(problems)


async def test_switch_between_global_and_project_folder(tmp_path):
    global_dir, project_dir = tmp_path / "global", tmp_path / "project" / "memory"
    (global_dir).mkdir()
    (global_dir / "fact.yml").write_text("scope: global\n")
    project_dir.mkdir(parents=True)
    (project_dir / "fact.yml").write_text("scope: project\n")
    screen = MemoryScreen(MemoryStore(global_dir, "global"), now=fixed_clock,
                          global_dir=global_dir, project_dir=project_dir,
                          folder_label=lambda p: p.parent.name + "/" + p.name)
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        assert "scope: global" in screen.query_one("#fact-editor", TextArea).text
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.store.folder == project_dir
        assert "scope: project" in screen.query_one("#fact-editor", TextArea).text
        assert "project/memory" in plain(screen.query_one("#memory-folder", Static))
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.store.folder == global_dir


async def test_the_project_folder_says_whether_agents_are_given_it(tmp_path):
    global_dir, project_dir = tmp_path / "global", tmp_path / "project" / "memory"
    global_dir.mkdir()
    project_dir.mkdir(parents=True)
    (project_dir / "fact.yml").write_text("scope: project\n")
    screen = MemoryScreen(MemoryStore(global_dir, "global"), now=fixed_clock,
                          global_dir=global_dir, project_dir=project_dir, folder_label=lambda p: p.name)
    app = ScreenHost(screen)
    async with app.run_test(size=(120, 30)) as pilot:
        assert "not allowed" not in plain(screen.query_one("#memory-folder", Static))  # global: trusted
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "not allowed for agents" in plain(screen.query_one("#memory-folder", Static))
        allow_folder(project_dir, now=1.0)
        screen.show_folder()
        assert "not allowed" not in plain(screen.query_one("#memory-folder", Static))
        (project_dir / "rules.jsonl").write_text("")  # a rules file after allowing: allow again
        screen.show_folder()
        assert "changed since allowed" in plain(screen.query_one("#memory-folder", Static))


# --- fact ----------------------------------------------------------------------------------


async def test_broken_fact_edit_shows_line_and_column_and_writes_nothing(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        before = (folder / "fact.yml").read_bytes()
        editor = app.screen.query_one("#fact-editor", TextArea)
        editor.load_text("name: Dain\nlanguage: [unclosed\neditor: helix\n")
        editor.focus()
        await pilot.press("ctrl+s")
        await pilot.pause()
        status = plain(app.screen.query_one("#fact-status", Static))
        assert "Not saved" in status
        assert "line 3, column 7" in status  # where ruamel notices the unclosed flow list
        assert editor.cursor_location == (2, 6)
        assert (folder / "fact.yml").read_bytes() == before
        assert not (folder / "fact.yml.bak").exists()


async def test_valid_fact_edit_is_saved(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        editor = app.screen.query_one("#fact-editor", TextArea)
        editor.focus()
        editor.move_cursor((editor.document.line_count - 1, 0))
        editor.insert("shell: fish\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
        text = (folder / "fact.yml").read_text()
        assert text.endswith("editor: helix\nshell: fish\n")
        assert text.startswith("# Stable facts")  # the comment survives
        assert "shell" in [o.id for o in app.screen.query_one("#fact-keys", OptionList).options]


async def test_archive_a_fact_from_the_list_and_restore_it(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        keys = app.screen.query_one("#fact-keys", OptionList)
        keys.focus()
        keys.highlighted = keys.get_option_index("editor")
        await pilot.press("ctrl+x")
        await pilot.pause()
        text = (folder / "fact.yml").read_text()
        assert "editor:\n  archived: true\n" in text
        assert "# what agents call me" in text
        assert "editor" not in [o.id for o in keys.options]
        await pilot.press("h")  # show archived
        assert "editor" in [o.id for o in keys.options]
        keys.highlighted = keys.get_option_index("editor")
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert (folder / "fact.yml").read_text() == SAMPLE_FACTS


async def test_archive_the_key_under_the_cursor(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        editor = app.screen.query_one("#fact-editor", TextArea)
        editor.focus()
        editor.move_cursor((6, 4))  # inside the "tools:" block
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "tools:\n  archived: true\n" in (folder / "fact.yml").read_text()


async def test_external_edit_is_detected_and_not_overwritten(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        editor = app.screen.query_one("#fact-editor", TextArea)
        editor.focus()
        editor.move_cursor((editor.document.line_count - 1, 0))
        editor.insert("mine: true\n")
        external = "name: Someone Else\n"
        (folder / "fact.yml").write_text(external)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)  # the reload offer
        assert any("changed by another program" in n.message for n in app._notifications)
        await pilot.press("n")  # keep my edit on screen
        await pilot.pause()
        assert (folder / "fact.yml").read_text() == external
        assert "mine: true" in editor.text
        await pilot.press("ctrl+l")  # reload: asks first, because the editor has an edit
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert editor.text == external


async def test_external_scratchpad_edit_is_refused_then_reloaded(folder):
    app = host(folder, "scratchpad")
    async with app.run_test(size=SIZE) as pilot:
        editor = app.screen.query_one("#scratch-editor", TextArea)
        editor.focus()
        editor.insert("my note\n")
        (folder / "scratchpad.md").write_text("- [ ] someone else's item\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")  # reload
        await pilot.pause()
        assert (folder / "scratchpad.md").read_text() == "- [ ] someone else's item\n"
        assert editor.text == "- [ ] someone else's item\n"


# --- episodic ------------------------------------------------------------------------------


async def test_an_entry_added_meanwhile_survives_an_archive(folder):
    """Archiving by id re-reads the file under the folder's lock: an agent's new entry is kept."""
    app = host(folder, "episodic")
    async with app.run_test(size=SIZE) as pilot:
        table(app).focus()
        with (folder / "episodic.jsonl").open("a", encoding="utf-8") as f:
            f.write('{"id":"ep-agent001","summary":"written by an agent meanwhile"}\n')
        await pilot.press("ctrl+x")
        await pilot.pause()
        text = (folder / "episodic.jsonl").read_text(encoding="utf-8")
        assert '"ep-agent001"' in text and '"archived":true' in text
        assert "ep-agent001" in row_ids(app)


async def test_table_rows_sort_and_filter(folder):
    app = host(folder, "episodic")
    async with app.run_test(size=SIZE) as pilot:
        assert row_ids(app) == ["ep-1a2b3c4d", "ep-2b3c4d5e", "ep-3c4d5e6f", "ep-4d5e6f70",
                                "ep-5e6f7081", "ep-6f708192"]  # strongest first
        assert table(app).get_cell("ep-1a2b3c4d", "time").plain == "2026-06-24 · 6d"
        assert table(app).get_cell("ep-2b3c4d5e", "strength").plain == "█████░ 0.77"
        await pilot.press("s", "s")  # strength -> time -> importance
        assert row_ids(app)[:2] == ["ep-1a2b3c4d", "ep-2b3c4d5e"]
        assert app.screen.query_one("#memory-episodic").sort_by == "importance"
        box = app.screen.query_one("#episodic-filter", Input)
        box.value = "tag:hook"
        await pilot.pause()
        assert sorted(row_ids(app)) == ["ep-1a2b3c4d", "ep-4d5e6f70"]
        box.value = "type:note"
        await pilot.pause()
        assert sorted(row_ids(app)) == ["ep-5e6f7081", "ep-6f708192"]
        box.value = "誤刪"
        await pilot.pause()
        assert row_ids(app) == ["ep-1a2b3c4d"]


async def test_detail_shows_each_strength_term(folder):
    app = host(folder, "episodic")
    async with app.run_test(size=SIZE) as pilot:
        t = table(app)
        t.focus()
        t.move_cursor(row=t.get_row_index("ep-2b3c4d5e"))
        await pilot.pause()
        text = plain(app.screen.query_one("#episodic-detail", Static))
        # importance 7, 2 retrievals, no links, 20 days 10 hours old
        weeks = (FIXED_NOW - datetime(2026, 6, 10, 14, tzinfo=timezone.utc)).total_seconds() / WEEK
        assert "7 / 10" in text and "+0.70" in text
        assert "2 × 0.08" in text and "+0.16" in text
        assert "0 × 0.05" in text
        assert f"{weeks:.1f} weeks × 0.03" in text and f"−{weeks * 0.03:.2f}" in text
        assert f"{0.7 + 0.16 - weeks * 0.03:.2f}" in text


async def test_decayed_view_matches_hand_computed_values(folder):
    def weeks(ts: datetime) -> float:
        return (FIXED_NOW - ts).total_seconds() / WEEK

    # importance/10 + retrievals*0.08 + links*0.05 - weeks*0.03, clamped to [0, 1]
    expected = {
        "ep-4d5e6f70": 0.3 + 0.05 - weeks(datetime(2026, 5, 20, 8, tzinfo=timezone.utc)) * 0.03,
        "ep-5e6f7081": 0.3 - weeks(datetime(2026, 5, 1, 12, tzinfo=timezone.utc)) * 0.03,
        "ep-6f708192": max(0.0, 0.2 - weeks(datetime(2025, 11, 20, 12, tzinfo=timezone.utc))
                           * 0.03),
    }
    assert round(expected["ep-4d5e6f70"], 4) == 0.1714
    assert round(expected["ep-5e6f7081"], 4) == 0.0407
    app = host(folder, "episodic")
    async with app.run_test(size=SIZE) as pilot:
        table(app).focus()
        await pilot.press("d")
        assert row_ids(app) == ["ep-6f708192", "ep-5e6f7081", "ep-4d5e6f70"]  # weakest first
        for entry_id, value in expected.items():
            assert table(app).get_cell(entry_id, "strength").plain.endswith(f"{value:.2f}")
        assert "decayed (< 0.20): 3" in plain(app.screen.query_one("#episodic-view", Static))


async def test_decayed_archive_selected_then_all_after_confirm(folder):
    app = host(folder, "episodic")
    async with app.run_test(size=SIZE) as pilot:
        table(app).focus()
        await pilot.press("d", "space", "ctrl+x")  # mark the weakest, archive the marked
        await pilot.pause()
        archived = {e["id"] for e in episodic_lines(folder) if e.get("archived")}
        assert archived == {"ep-6f708192"}
        assert row_ids(app) == ["ep-5e6f7081", "ep-4d5e6f70"]
        await pilot.press("ctrl+d")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert "Archive all 2 entries" in dialog.question
        assert "ep-5e6f7081" in dialog.question and "ep-4d5e6f70" in dialog.question
        await pilot.press("y")
        await pilot.pause()
        archived = {e["id"] for e in episodic_lines(folder) if e.get("archived")}
        assert archived == {"ep-6f708192", "ep-5e6f7081", "ep-4d5e6f70"}
        assert row_ids(app) == []
        assert "{this line is not json" in (folder / "episodic.jsonl").read_text()


async def test_add_edit_archive_restore(folder):
    app = host(folder, "episodic")
    async with app.run_test(size=SIZE) as pilot:
        table(app).focus()
        await pilot.press("ctrl+n")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, MemoryEntryForm)
        form.query_one("#entry-summary", Input).value = "Pinned textual to 8.x"
        form.query_one("#entry-type", Input).value = "decision"
        form.query_one("#entry-tags", Input).value = "deps, ui"
        form.query_one("#entry-importance", Input).value = "9"
        await pilot.press("ctrl+s")
        await pilot.pause()
        added = episodic_lines(folder)[-1]
        assert added["summary"] == "Pinned textual to 8.x"
        assert added["type"] == "decision" and added["tags"] == ["deps", "ui"]
        assert added["importance"] == 9 and added["ts"] == "2026-07-01T00:00:00+00:00"
        new_id = added["id"]
        assert row_ids(app)[0] == new_id  # importance 9, brand new: strongest
        t = table(app)
        t.move_cursor(row=t.get_row_index(new_id))
        await pilot.press("ctrl+e")
        await pilot.pause()
        app.screen.query_one("#entry-importance", Input).value = "4"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert episodic_lines(folder)[-1]["importance"] == 4
        t.move_cursor(row=t.get_row_index(new_id))
        await pilot.press("ctrl+x")
        await pilot.pause()
        assert episodic_lines(folder)[-1]["archived"] is True
        assert new_id not in row_ids(app)
        await pilot.press("h")
        assert new_id in row_ids(app)
        t.move_cursor(row=t.get_row_index(new_id))
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert "archived" not in episodic_lines(folder)[-1]


async def test_edit_writes_only_changed_fields(folder):
    app = host(folder, "episodic")
    async with app.run_test(size=SIZE) as pilot:
        t = table(app)
        t.focus()
        t.move_cursor(row=t.get_row_index("ep-3c4d5e6f"))
        await pilot.press("ctrl+e")
        await pilot.pause()
        app.screen.query_one("#entry-summary", Input).value = "First release on PyPI (0.1.0)"
        await pilot.press("ctrl+s")
        await pilot.pause()
        line = next(e for e in episodic_lines(folder) if e["id"] == "ep-3c4d5e6f")
        assert line["summary"] == "First release on PyPI (0.1.0)"
        assert "detail" not in line and "lesson" not in line


async def test_link_and_unlink_with_suggestions(folder):
    app = host(folder, "episodic")
    async with app.run_test(size=SIZE) as pilot:
        t = table(app)
        t.focus()
        t.move_cursor(row=t.get_row_index("ep-2b3c4d5e"))
        await pilot.press("ctrl+k")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, MemoryLinkForm)
        assert "ep-3c4d5e6f" in [c[0] for c in form.choices]
        form.query_one("#link-id", Input).value = "PyPI"  # narrows the list to one
        await pilot.press("enter")
        await pilot.pause()
        store = MemoryStore(folder)
        assert [(link.a, link.b) for link in store.links("ep-2b3c4d5e")] == [
            ("ep-2b3c4d5e", "ep-3c4d5e6f")]
        assert "ep-3c4d5e6f (0.5)" in plain(app.screen.query_one("#episodic-detail", Static))
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert [c[0] for c in app.screen.choices] == ["ep-3c4d5e6f"]
        await pilot.press("enter")  # the input is empty: picks the only suggestion
        await pilot.pause()
        assert MemoryStore(folder).links("ep-2b3c4d5e") == []


# --- scratchpad ----------------------------------------------------------------------------


async def test_promote_end_to_end(folder):
    app = host(folder, "scratchpad")
    async with app.run_test(size=SIZE) as pilot:
        items = app.screen.query_one("#scratch-items", OptionList)
        items.focus()
        items.highlighted = items.get_option_index("line-7")  # "Found a bug: promote lost…"
        await pilot.press("ctrl+e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, MemoryEntryForm)
        assert form.query_one("#entry-type", Input).value == "failure"  # guessed from "bug"
        assert form.query_one("#entry-summary", Input).value.startswith("Found a bug")
        form.query_one("#entry-lesson", Input).value = "Test promote with an empty tag list"
        form.query_one("#entry-tags", Input).value = "memory, tests"
        form.query_one("#entry-importance", Input).value = "6"
        await pilot.press("ctrl+s")
        await pilot.pause()
        entry = episodic_lines(folder)[-1]
        assert entry["summary"] == "Found a bug: promote lost the tags when none were known"
        assert entry["type"] == "failure" and entry["importance"] == 6
        assert entry["lesson"] == "Test promote with an empty tag list"
        assert entry["tags"] == ["memory", "tests"]
        pad = (folder / "scratchpad.md").read_text().splitlines()
        assert pad[6] == (
            f"- Found a bug: promote lost the tags when none were known (→ {entry['id']})")
        assert app.screen.query_one("#scratch-editor", TextArea).text.splitlines()[6] == pad[6]
        assert entry["id"] in row_ids(app)  # the Episodic tab re-read the file


async def test_promote_after_the_scratchpad_changed_on_disk_writes_nothing(folder):
    app = host(folder, "scratchpad")
    async with app.run_test(size=SIZE) as pilot:
        memory = app.screen
        items = memory.query_one("#scratch-items", OptionList)
        items.focus()
        items.highlighted = items.get_option_index("line-7")
        before = episodic_lines(folder)
        pad = folder / "scratchpad.md"
        pad.write_text(pad.read_text() + "- added by another program\n")
        await pilot.press("ctrl+e")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert episodic_lines(folder) == before
        assert pad.read_text().endswith("- added by another program\n")
        assert "Not promoted" in str(memory.query_one("#scratch-status", Static).render())
        assert isinstance(app.screen, ConfirmScreen)  # offers to reload from disk


async def test_promote_can_remove_the_line(folder):
    app = host(folder, "scratchpad")
    async with app.run_test(size=SIZE) as pilot:
        items = app.screen.query_one("#scratch-items", OptionList)
        items.focus()
        items.highlighted = items.get_option_index("line-5")
        await pilot.press("ctrl+e")
        await pilot.pause()
        app.screen.query_one("#entry-remove").value = True
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Episodic table with strength bars" not in (folder / "scratchpad.md").read_text()
        assert episodic_lines(folder)[-1]["summary"] == "Episodic table with strength bars"


async def test_finish_task_end_to_end(folder):
    app = host(folder, "scratchpad")
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one("#scratch-items", OptionList).focus()
        await pilot.press("ctrl+f")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, MemoryPickList)
        choices = picker.query_one(SelectionList)
        assert list(choices.selected) == [0]  # the ticked item is preselected
        choices.select(2)  # "Decide whether links are directed"
        await pilot.press("ctrl+s")
        await pilot.pause()
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert "Promote 2 items" in confirm.question
        assert "Decide whether links are directed" in confirm.question
        await pilot.press("y")
        await pilot.pause()
        assert (folder / "scratchpad.md").read_text() == ""
        assert (folder / "scratchpad.md.bak").read_text().startswith("# Task: memory screen")
        promoted = episodic_lines(folder)[-2:]
        assert [e["summary"] for e in promoted] == ["Store API for the three tiers",
                                                    "Decide whether links are directed"]
        assert promoted[0]["type"] == "milestone"
        history = list((folder / ".history").glob("scratchpad-*.md"))
        assert len(history) == 1
        assert f"(→ {promoted[1]['id']})" in history[0].read_text()
        assert app.screen.query_one("#scratch-editor", TextArea).text == ""
        assert app.screen.query_one("#scratch-items", OptionList).option_count == 0


async def test_promote_refuses_while_the_editor_has_unsaved_text(folder):
    app = host(folder, "scratchpad")
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one("#scratch-editor", TextArea).insert("draft ")
        items = app.screen.query_one("#scratch-items", OptionList)
        items.focus()
        items.highlighted = 0
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert isinstance(app.screen, MemoryScreen)
        assert any("Save (ctrl+s) or reload (ctrl+l)" in n.message for n in app._notifications)


def test_decayed_helpers_agree_with_the_store(folder):
    store = open_sample_memory(folder)
    entry = store.entry("ep-5e6f7081")
    assert round(strength_of(entry, FIXED_NOW), 4) == 0.0407

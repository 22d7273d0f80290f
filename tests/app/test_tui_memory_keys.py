"""The memory screen as a keyboard user meets it: the three folders ctrl+o cycles through, tab
out of the editors, keys for the tabs, the same archive/restore keys in every tier, recovering
from a refused promote, and the promote form."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Checkbox, DataTable, Input, OptionList, Static, TabbedContent, TextArea

from indexer.memory import MemoryStore
from memory_rules_host import SAMPLE_FACTS, ScreenHost, fixed_clock, open_sample_memory
from test_tui_memory import episodic_lines, plain, row_ids
from tui.screens.memory import GLOBAL_REASON, PROJECT_REASON, MemoryScreen
from tui.widgets.memory_editor import MemoryEditor
from tui.widgets.memory_entry_form import MarkedCheckbox, MemoryEntryForm

SIZE = (120, 36)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "memory"


def host(folder: Path, tab: str = "fact") -> ScreenHost:
    screen = MemoryScreen(open_sample_memory(folder), now=fixed_clock, folder_label=lambda p: p.name,
                          initial_tab=tab)
    return ScreenHost(screen)


def header(app) -> str:
    return plain(app.screen.query_one("#memory-folder", Static))


# --- 3: ctrl+o cycles through the configured, the global and the project folder ------------------


async def test_ctrl_o_cycles_through_three_folders_and_returns_to_the_configured_one(tmp_path):
    folders = {name: tmp_path / name for name in ("configured", "global", "project")}
    for name, path in folders.items():
        path.mkdir()
        (path / "fact.yml").write_text(f"scope: {name}\n")
    store = MemoryStore(folders["configured"], "--memory-dir")
    screen = MemoryScreen(store, now=fixed_clock, global_dir=folders["global"],
                          project_dir=folders["project"], folder_label=lambda p: p.name)
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        assert "configured  (--memory-dir)" in header(app)
        assert "ctrl+o: the global folder, global" in header(app)
        seen = []
        for _ in range(3):
            await pilot.press("ctrl+o")
            await pilot.pause()
            seen.append((screen.store.folder.name, screen.query_one("#fact-editor", TextArea).text))
        assert seen == [("global", "scope: global\n"), ("project", "scope: project\n"),
                        ("configured", "scope: configured\n")]
        assert "configured  (--memory-dir)" in header(app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert f"global  ({GLOBAL_REASON})" in header(app) and "ctrl+o: the project folder" in header(app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert f"project  ({PROJECT_REASON})" in header(app) and "ctrl+o: the configured folder" in header(app)


async def test_ctrl_o_offers_a_folder_once(tmp_path):
    """Configured = the global folder: two choices, global and project."""
    global_dir, project_dir = tmp_path / "global", tmp_path / "project"
    screen = MemoryScreen(MemoryStore(global_dir, "global default under the data dir"), now=fixed_clock,
                          global_dir=global_dir, project_dir=project_dir, folder_label=lambda p: p.name)
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.store.folder == project_dir
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.store.folder == global_dir


# --- 4: tab leaves the editors; indentation on ctrl+]; keys for the tabs ---------------------


@pytest.mark.parametrize("tab, editor_id", [("fact", "#fact-editor"), ("scratchpad", "#scratch-editor")])
async def test_tab_moves_focus_out_of_an_editor_and_types_nothing(folder, tab, editor_id):
    app = host(folder, tab)
    async with app.run_test(size=SIZE) as pilot:
        editor = app.screen.query_one(editor_id, MemoryEditor)
        editor.focus()
        before = editor.text
        await pilot.press("tab")
        assert app.focused is not editor
        assert editor.text == before


async def test_ctrl_right_bracket_indents_and_ctrl_backslash_unindents(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        editor = app.screen.query_one("#fact-editor", MemoryEditor)
        editor.focus()
        editor.move_cursor((1, 0))
        await pilot.press("ctrl+right_square_bracket")
        assert editor.document.get_line(1).startswith("  name: Dain")
        assert editor.cursor_location == (1, 2)
        editor.selection = ((1, 0), (3, 0))  # lines 2 and 3
        await pilot.press("ctrl+right_square_bracket")
        assert [editor.document.get_line(n)[:6] for n in (1, 2, 3)] == ["    na", "  lang", "statis"]
        await pilot.press("ctrl+backslash")
        assert [editor.document.get_line(n)[:6] for n in (1, 2, 3)] == ["  name", "langua", "statis"]


async def test_switching_tabs_focuses_the_tabs_list_not_an_editor(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        tabs = app.screen.query_one("#memory-tabs", TabbedContent)
        app.screen.query_one("#fact-keys", OptionList).focus()
        await pilot.press("2")
        await pilot.pause()
        assert tabs.active == "episodic" and isinstance(app.focused, DataTable)
        await pilot.press("3")
        await pilot.pause()
        assert tabs.active == "scratchpad" and app.focused.id == "scratch-items"
        await pilot.press("1")
        await pilot.pause()
        assert tabs.active == "fact" and app.focused.id == "fact-keys"
        await pilot.press("ctrl+pagedown")
        await pilot.pause()
        assert tabs.active == "episodic"
        await pilot.press("ctrl+pageup", "ctrl+pageup")
        await pilot.pause()
        assert tabs.active == "scratchpad"
        editor = app.screen.query_one("#scratch-editor", MemoryEditor)
        editor.focus()
        await pilot.press("2")  # the editor keeps what it types
        assert tabs.active == "scratchpad" and editor.text.startswith("2")


async def test_enter_on_a_fact_key_puts_the_editor_there(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        keys = app.screen.query_one("#fact-keys", OptionList)
        keys.focus()
        keys.highlighted = keys.get_option_index("tools")
        await pilot.press("enter")
        await pilot.pause()
        editor = app.screen.query_one("#fact-editor", MemoryEditor)
        assert app.focused is editor and editor.cursor_location == (4, 0)


# --- 8: archive and restore mean the same in every tier -------------------------------------


async def test_x_archives_and_the_highlight_stays_in_place(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        keys = app.screen.query_one("#fact-keys", OptionList)
        keys.focus()
        keys.highlighted = keys.get_option_index("tools")
        await pilot.press("ctrl+x")
        await pilot.pause()
        assert "tools:\n  archived: true\n" in (folder / "fact.yml").read_text()
        assert keys.get_option_at_index(keys.highlighted).id == "editor"  # the next one, not the top
        await pilot.press("h")  # show archived: the highlight stays on its key
        await pilot.pause()
        assert keys.get_option_at_index(keys.highlighted).id == "editor"
        keys.highlighted = keys.get_option_index("tools")
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert (folder / "fact.yml").read_text() == SAMPLE_FACTS
        assert keys.get_option_at_index(keys.highlighted).id == "tools"


async def test_r_on_a_key_that_is_not_archived_says_so_and_changes_nothing(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        keys = app.screen.query_one("#fact-keys", OptionList)
        keys.focus()
        keys.highlighted = keys.get_option_index("editor")
        before = (folder / "fact.yml").read_bytes()
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert (folder / "fact.yml").read_bytes() == before
        messages = [n.message for n in app._notifications]
        assert "'editor' is not archived: there is nothing to restore." in messages
        assert not any(m.startswith("Restored") for m in messages)
        status = plain(app.screen.query_one("#fact-status", Static))
        assert "Restored" not in status


async def test_a_is_no_archive_key_in_the_fact_list(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        keys = app.screen.query_one("#fact-keys", OptionList)
        keys.focus()
        before = (folder / "fact.yml").read_bytes()
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert (folder / "fact.yml").read_bytes() == before


async def test_archiving_at_the_cursor_keeps_the_cursor_on_its_line(folder):
    app = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        editor = app.screen.query_one("#fact-editor", MemoryEditor)
        editor.focus()
        editor.move_cursor((6, 4))  # inside the "tools:" block
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "tools:\n  archived: true\n" in (folder / "fact.yml").read_text()
        assert editor.cursor_location == (6, 4)


async def test_episodic_archive_keeps_the_cursor_in_place(folder):
    app = host(folder, "episodic")
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one("#episodic-table", DataTable)
        table.focus()
        ids = row_ids(app)
        table.move_cursor(row=2)
        await pilot.press("ctrl+x")
        await pilot.pause()
        assert row_ids(app) == ids[:2] + ids[3:]
        assert table.cursor_row == 2
        await pilot.press("h")  # with archived: the cursor stays on its entry
        await pilot.pause()
        assert row_ids(app)[table.cursor_row] == ids[3]


# --- 12: a refused promote says how to recover, and keeps what was typed ---------------------


async def test_a_refused_promote_names_the_reload_key_and_keeps_the_typed_draft(folder):
    app = host(folder, "scratchpad")
    async with app.run_test(size=SIZE) as pilot:
        memory = app.screen
        items = memory.query_one("#scratch-items", OptionList)
        items.focus()
        items.highlighted = 1  # "Episodic table with strength bars"
        await pilot.press("ctrl+e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, MemoryEntryForm)
        summary = form.query_one("#entry-summary", Input)
        summary.value = "Strength bars in the episodic table"
        with (folder / "scratchpad.md").open("a", encoding="utf-8") as f:
            f.write("- added by another program\n")
        await pilot.press("ctrl+s")
        await pilot.pause()
        status = plain(memory.query_one("#scratch-status", Static))
        assert "Not promoted" in status and "ctrl+l" in status
        assert app.screen.__class__.__name__ == "ConfirmScreen"  # the reload offer
        await pilot.press("enter")  # reload
        await pilot.pause()
        items.highlighted = 1
        items.focus()
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert app.screen.query_one("#entry-summary", Input).value == "Strength bars in the episodic table"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert any(e["summary"] == "Strength bars in the episodic table" for e in episodic_lines(folder))


# --- friction: a final newline, and the promote form ------------------------------------------


@pytest.mark.parametrize("tab, editor_id, name", [("fact", "#fact-editor", "fact.yml"),
                                                  ("scratchpad", "#scratch-editor", "scratchpad.md")])
async def test_a_saved_file_ends_with_a_newline(folder, tab, editor_id, name):
    app = host(folder, tab)
    async with app.run_test(size=SIZE) as pilot:
        editor = app.screen.query_one(editor_id, MemoryEditor)
        editor.load_text("name: Dain")  # no final newline in the editor
        editor.focus()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert (folder / name).read_text(encoding="utf-8") == "name: Dain\n"
        pane = editor.parent.parent
        assert not pane.has_unsaved_edits()


async def test_the_promote_form_keeps_its_text_on_focus(folder):
    app = host(folder, "scratchpad")
    async with app.run_test(size=SIZE) as pilot:
        items = app.screen.query_one("#scratch-items", OptionList)
        items.focus()
        items.highlighted = 1
        await pilot.press("ctrl+e")
        await pilot.pause()
        summary = app.screen.query_one("#entry-summary", Input)
        filled = summary.value
        assert filled and app.focused is summary
        await pilot.press("!")
        assert summary.value == filled + "!"
        await pilot.press("tab", "tab")  # through the type to the detail, and back
        await pilot.press("shift+tab", "shift+tab")
        await pilot.press("?")
        assert summary.value == filled + "!?"


async def test_the_remove_checkbox_shows_a_different_mark_on_and_off(folder):
    app = host(folder, "scratchpad")
    async with app.run_test(size=SIZE) as pilot:
        items = app.screen.query_one("#scratch-items", OptionList)
        items.focus()
        items.highlighted = 1
        await pilot.press("ctrl+e")
        await pilot.pause()
        box = app.screen.query_one("#entry-remove", Checkbox)
        assert isinstance(box, MarkedCheckbox)
        off = box.render().plain
        box.value = True
        on = box.render().plain
        assert off != on and "✓" in on and "✓" not in off

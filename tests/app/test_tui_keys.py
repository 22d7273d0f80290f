"""Keys and focus (issue 33): where a person may be typing, keys are text; what starts a process
or writes a file has a modifier, and a fork asks first. F2 / F3 go to the box / the tree; ↑ and
escape from the results reach the box; a resume shows what the agent wrote; typing on the tree
filters it; Task calls and subagents open each other; the promote form's tab order.

The agents are the stand-ins of ``launch_logs`` (a script on PATH that records its argv), run
by the app's injectable runner as in ``test_tui_resume``."""

from __future__ import annotations

import io
import json
import os
import string
import subprocess
from pathlib import Path

import pytest
from rich.console import Console
from textual import events
from textual.keys import _character_to_key
from textual.widgets import DataTable, Input, OptionList, TextArea

from tui.agent_launch import AgentExit
from tui.screens.confirm import ConfirmLine, ConfirmScreen
from tui.screens.help import HelpScreen
from tui.screens.memory import MemoryScreen
from tui.screens.search import SearchScreen
from tui.screens.sessions import SessionsScreen
from tui.screens.transcript import TranscriptScreen
from tui.widgets.context_pane import ContextPane
from tui.widgets.memory_entry_form import MemoryEntryForm
from tui.widgets.memory_link_form import MemoryLinkForm
from tui.widgets.memory_pick_list import MemoryPickList
from tui.widgets.message_list import MessageList
from tui.widgets.result_list import ResultList
from tui.widgets.rule_edit_form import RuleEditForm
from tui.widgets.session_tree import SessionTree

from launch_logs import CLAUDE_ID, SUBAGENT_ID, build, fake_agents, recorded_runs, three_agent_tree
from tui_fixtures import SIZE, app_for, settle, type_query, write_sample_memory

# Every printable ASCII character, a letter first (a word never starts with a space), and the
# issue's own words: "docker Redis" and "yaml" lost their R and y.
TYPED = "Redis yaml " + string.ascii_letters + string.digits + string.punctuation.replace("?", "") + " x"
FORMS = (MemoryEntryForm, MemoryLinkForm, MemoryPickList, RuleEditForm, ConfirmScreen, ConfirmLine)


def run_plainly(app, launch) -> AgentExit:
    return AgentExit(subprocess.run(list(launch.argv), cwd=launch.cwd, check=False).returncode)


@pytest.fixture
def world(tmp_path, monkeypatch):
    cwd = tmp_path / "my project"
    cwd.mkdir()
    roots = three_agent_tree(tmp_path / "logs", cwd, prompt="fix the login page")
    db = build(roots, tmp_path / "index.sqlite3")
    bin_dir = fake_agents(tmp_path / "bin", "claude", "codex", "pi")
    record = tmp_path / "runs.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_AGENT_RECORD", str(record))
    memory = write_sample_memory(tmp_path / "memory")
    return {"tmp": tmp_path, "db": db, "roots": roots, "record": record, "memory": memory, "cwd": cwd}


def make(world):
    return app_for(world["db"], world["roots"], agent_runner=run_plainly, memory_dir=world["memory"])


def files_on_disk(world) -> dict[str, tuple[int, int]]:
    """Every file a key could write (logs, memory, exports, the data dir), but the index."""
    found = {}
    for base in (world["tmp"], Path(os.environ["THREADBACK_HOME"])):
        for path in base.rglob("*"):
            if path.is_file() and ".sqlite3" not in path.name and path.name != "runs.jsonl":
                stat = path.stat()
                found[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return found


async def type_fast(pilot, text: str) -> None:
    """All the keys at once, as a fast typist (or a paste into a terminal) sends them."""
    for character in text:
        pilot.app.post_message(events.Key(_character_to_key(character), character))
    await settle(pilot)


async def type_everything(pilot, world, widget) -> None:
    widget.focus()
    await pilot.pause()
    before = files_on_disk(world)
    await type_fast(pilot, TYPED)
    assert recorded_runs(world["record"]) == [], f"typing on {widget!r} launched an agent"
    assert files_on_disk(world) == before, f"typing on {widget!r} wrote a file"
    assert not isinstance(pilot.app.screen, FORMS), f"typing on {widget!r} opened {pilot.app.screen!r}"


async def test_typing_on_the_results_and_the_preview_goes_on_in_the_search_box(world):
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        for widget_type in (ResultList, ContextPane):
            await type_query(pilot, "login")
            box = app.screen.query_one("#query", Input)
            await pilot.press("down")
            await settle(pilot)
            await type_everything(pilot, world, app.screen.query_one(widget_type))
            assert app.focused is box and box.value == "login" + TYPED


async def test_typing_on_the_tree_filters_it(world):
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        screen = app.screen
        await type_everything(pilot, world, screen.query_one(SessionTree))
        box = screen.query_one("#session-filter", Input)
        assert app.focused is box and box.value == TYPED
        box.value = ""
        screen.query_one(SessionTree).focus()
        await pilot.press(*"login")  # the README's "type to filter"
        await settle(pilot)
        assert box.value == "login" and screen.filter_text == "login"
        tree = screen.query_one(SessionTree)
        labels = [str(n.label) for n in tree._tree_lines and [line.node for line in tree._tree_lines]]
        assert any("fix the login page" in label for label in labels)
        assert not any("tidy the codex logs" in label for label in labels)


async def test_typing_in_a_transcript_finds_and_runs_nothing(world):
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(app.context.index.session(CLAUDE_ID))
        await settle(pilot)
        await type_everything(pilot, world, app.screen.query_one(MessageList))
        box = app.screen.query_one("#find", Input)
        assert app.focused is box and box.value == TYPED
        await pilot.press("escape")  # closes the find box, then
        assert isinstance(app.screen, TranscriptScreen) and isinstance(app.focused, MessageList)


async def test_typing_on_every_memory_list_and_editor_writes_nothing_and_opens_no_form(world):
    app = make(world)
    async with app.run_test(size=(120, 48)) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        memory = app.screen
        assert isinstance(memory, MemoryScreen)
        for tab, selectors in (("fact", ("#fact-keys", "#fact-editor")),
                               ("episodic", ("#episodic-table", "#episodic-filter")),
                               ("scratchpad", ("#scratch-items", "#scratch-editor"))):
            for selector in selectors:
                while app.screen is not memory:  # a help screen (it is only read) closes
                    app.pop_screen()
                memory.action_show_tab(tab)
                await settle(pilot)
                await type_everything(pilot, world, memory.query_one(selector))


async def test_switching_memory_tabs_focuses_the_tab_list_and_the_help_says_how_to_edit(world):
    app = make(world)
    async with app.run_test(size=(120, 48)) as pilot:
        await pilot.press("f4")
        await settle(pilot)
        for key, focused in (("2", DataTable), ("3", OptionList), ("1", OptionList)):
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.focused, focused) and not isinstance(app.focused, TextArea)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(app.screen._table())
        assert "tab from the list to the editor" in console.export_text()


async def test_the_scratchpad_keys_fit_in_the_footer_of_a_48_row_terminal(world):
    app = make(world)
    async with app.run_test(size=(100, 48)) as pilot:
        await pilot.press("f4", "3")
        await settle(pilot)
        await pilot.pause()
        from textual.widgets._footer import FooterKey

        shown = {key.description for key in app.screen.query(FooterKey)}
        assert {"Promote", "Finish task"} <= shown, shown


async def test_a_fork_asks_on_one_line_and_no_letter_answers_it(world):
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(app.context.index.session(CLAUDE_ID))
        await settle(pilot)
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmLine)
        await type_fast(pilot, "yes y Y")
        assert recorded_runs(world["record"]) == [] and isinstance(app.screen, ConfirmLine)
        await pilot.press("escape")
        await settle(pilot)
        assert recorded_runs(world["record"]) == [] and isinstance(app.screen, TranscriptScreen)
        await pilot.press("ctrl+d", "enter")
        await settle(pilot)
        assert recorded_runs(world["record"])[0]["argv"][1:] == ["--resume", CLAUDE_ID, "--fork-session"]


async def test_f2_puts_the_cursor_in_the_search_box_and_f3_on_the_tree(world):
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "login")
        await pilot.press("down", "enter")  # a transcript, opened in the search mode
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        await pilot.press("f3")
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        tree.focus()
        app.open_transcript(app.context.index.session(CLAUDE_ID))  # one in the sessions mode
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen) and app.focused is app.screen.query_one("#query", Input)
        await pilot.press("f3")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen) and isinstance(app.focused, SessionTree)
        app.screen.query_one("#session-filter", Input).focus()
        await pilot.press("f3")  # from the filter box too
        assert isinstance(app.focused, SessionTree)


async def test_up_from_the_first_result_and_one_escape_reach_the_search_box(world):
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "tidy")
        box = app.screen.query_one("#query", Input)
        results = app.screen.query_one(ResultList)
        assert results.option_count >= 2
        await pilot.press("down", "down")
        assert results.highlighted == 1
        await pilot.press("up")
        assert results.highlighted == 0 and app.focused is results
        await pilot.press("up")
        assert app.focused is box
        await pilot.press("down", "down", "escape")
        assert app.focused is box
        await pilot.press("down", "tab")
        assert isinstance(app.focused, ContextPane)
        await pilot.press("escape")
        assert app.focused is box


async def test_after_a_resume_the_open_transcript_shows_what_the_agent_wrote(world, monkeypatch):
    session = world["roots"]
    log = next(Path(world["tmp"], "logs", "claude").rglob(f"{CLAUDE_ID}.jsonl"))
    line = {"type": "assistant", "uuid": "resumed-1", "sessionId": CLAUDE_ID, "cwd": str(world["cwd"]),
            "timestamp": "2026-03-01T11:00:00Z", "message": {"id": "m9", "role": "assistant", "model": "claude-x",
                                                             "content": [{"type": "text", "text": "written after resume"}]}}
    monkeypatch.setenv("FAKE_AGENT_APPEND", str(log))
    monkeypatch.setenv("FAKE_AGENT_LINE", json.dumps(line))
    assert session is not None
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(app.context.index.session(CLAUDE_ID))
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        count = len(messages.messages)
        await pilot.press("ctrl+e")
        await settle(pilot)
        assert len(recorded_runs(world["record"])) == 1
        assert len(messages.messages) == count + 1
        assert messages.messages[-1].text == "written after resume"


async def test_enter_on_a_task_call_opens_the_subagent_and_a_key_goes_back_to_the_call(world):
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        parent = app.context.index.session(CLAUDE_ID)
        app.open_transcript(parent)
        await settle(pilot)
        messages = app.screen.query_one(MessageList)
        call = next(i for i, m in enumerate(messages.messages) if m.tool_name == "Task" and m.kind == "tool_call")
        messages.highlighted = call - messages.window_start
        await pilot.press("enter")
        await settle(pilot)
        subagent = app.screen
        assert isinstance(subagent, TranscriptScreen) and subagent.session.session_id == f"agent-{SUBAGENT_ID}"
        prompt = subagent.query_one(MessageList).get_option_at_index(0).prompt
        assert "parent agent" in str(prompt.renderables[0]) and "you" not in str(prompt.renderables[0])
        messages.highlighted = 0  # moved away meanwhile
        await pilot.press("ctrl+o")
        await settle(pilot)
        back = app.screen
        assert isinstance(back, TranscriptScreen) and back.session.session_id == CLAUDE_ID
        assert back.query_one(MessageList).current_message.id == messages.messages[call].id
        assert len(app.screen_stack) == 2  # back to the parent it came from, not a third screen
        app.pop_screen()
        app.open_transcript(subagent.session)  # opened on its own: ctrl+o opens the parent
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert app.screen.session.session_id == CLAUDE_ID and len(app.screen_stack) == 3
        assert app.screen.query_one(MessageList).current_message.id == messages.messages[call].id


async def test_the_promote_form_tabs_down_its_fields_and_a_number_is_selected(world):
    app = make(world)
    async with app.run_test(size=(120, 48)) as pilot:
        await pilot.press("f4", "3")
        await settle(pilot)
        items = app.screen.query_one("#scratch-items", OptionList)
        items.highlighted = 1
        await pilot.press("ctrl+e")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, MemoryEntryForm)
        order = []
        for _ in range(9):
            order.append(app.focused.id)
            await pilot.press("tab")
        assert order == ["entry-summary", "entry-type", "entry-detail", "entry-lesson", "entry-tags",
                         "entry-importance", "entry-remove", "entry-save", "entry-cancel"]
        importance = form.query_one("#entry-importance", Input)
        importance.focus()
        await pilot.pause()
        await pilot.press("7")
        assert importance.value == "7"


def test_snapshot_the_fork_confirm_line(snap_compare, world):
    async def run_before(pilot) -> None:
        pilot.app.open_transcript(pilot.app.context.index.session(CLAUDE_ID))
        await settle(pilot)
        await pilot.press("ctrl+d")
        await settle(pilot)

    assert snap_compare(make(world), terminal_size=SIZE, run_before=run_before)


def test_snapshot_a_subagent_transcript_names_its_prompt_the_parent_agents(snap_compare, world):
    async def run_before(pilot) -> None:
        index = pilot.app.context.index
        subagent = index.children(index.session(CLAUDE_ID))[0]
        pilot.app.open_transcript(subagent)
        await settle(pilot)

    assert snap_compare(make(world), terminal_size=SIZE, run_before=run_before)


async def test_typing_on_the_rules_screen_decides_nothing(world):
    from indexer.rules import RuleStore

    store = RuleStore(world["memory"])
    for text in ("Run the linter before committing.", "Never push to main."):
        store.propose(text, now=1.0)
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        await type_everything(pilot, world, app.screen.query_one("#rules-list", OptionList))
        assert len(RuleStore(world["memory"]).pending()) == 2

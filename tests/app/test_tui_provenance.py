"""The app's provenance views (issue 36): M remembers a message with its citation, ctrl+g on the
Memory and Rules screens shows what a memory cites ("source changed" once its text changed), H
hands the session to another agent after a confirmation."""

from __future__ import annotations

import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.memory import MemoryStore
from indexer.memory.citations import CitationLog
from indexer.provenance.citing import cite
from indexer.rules import RuleStore
from tui.agent_launch import AgentExit
from tui.screens.citations import CitationsScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.handoff import HandoffScreen
from tui.screens.transcript import TranscriptScreen
from tui.widgets.message_list import MessageList

from conftest import FIXED_NOW
from launch_logs import fake_agents
from test_handoff import _session
from tui_fixtures import SIZE, app_for, settle

# A fixed folder, so the paths the views show are the same on every run (snapshots).
BASE = Path("/tmp/threadback-provenance-views")
NOW = datetime.fromtimestamp(FIXED_NOW, timezone.utc)


@pytest.fixture()
def world(request, worker_id):
    # A snapshot's folder is named for its test alone (it is shown in the brief); the others, per worker.
    base = BASE / (request.node.name if request.node.name.endswith("_screen") else worker_id)
    shutil.rmtree(base, ignore_errors=True)
    project, logs, memory = base / "shop", base / "logs", base / "memory"
    project.mkdir(parents=True)
    memory.mkdir()
    (memory / "fact.yml").write_text("money: integer cents everywhere\n", encoding="utf-8")
    _session(logs, str(project), [
        "Move the checkout totals to integer cents; the float rounding loses a cent on refunds.",
        "I decided to store cents as integers instead of floats, because rounding lost money.",
        "Good. Keep the refund path for tomorrow.",
        "Noted: the refund path still needs tests.",
    ], [("Edit", {"file_path": "cart.py", "old_string": "total = 0.0", "new_string": "total_cents = 0"})])
    roots = only_roots({"claude-code": [logs]})
    db = base / "index.sqlite3"
    with Index(db) as index:
        index.update(roots, now=FIXED_NOW, archive=False)
    yield {"db": db, "roots": roots, "memory": memory, "logs": logs, "base": base}
    shutil.rmtree(base, ignore_errors=True)


def make(world, **overrides):
    def label(path) -> str:  # stable on every run and worker: the base folder and the test home as ~
        text = str(path)
        return text.replace(str(world["base"]), "~") if text.startswith(str(world["base"])) else "~/" + Path(text).name

    return app_for(world["db"], world["roots"], memory_dir=world["memory"], path_label=label, **overrides)


async def open_at(pilot, ordinal: int) -> None:
    app = pilot.app
    session = app.context.index.session("hand-1")
    message = next(m for m in app.context.index.messages(session) if m.ordinal == ordinal)
    app.open_transcript(session, message.id)
    await settle(pilot)


async def test_M_remembers_a_message_with_its_citation_and_ctrl_g_goes_back_to_it(world):
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        await open_at(pilot, 1)
        await pilot.press("ctrl+w")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        [entry] = MemoryStore(world["memory"]).entries()
        assert entry.summary.startswith("I decided to store cents as integers")
        [citation] = CitationLog(world["memory"]).of(entry.id)
        assert (citation.session, citation.first, citation.last) == ("claude-code:hand-1", 1, 1)

        await pilot.press("escape")
        await pilot.press("f4", "2")  # the Memory screen's episodic tab, the new entry selected
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert isinstance(app.screen, CitationsScreen)
        [row] = app.screen.rows.values()
        assert row.status == "ok"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        messages = app.screen.query_one(MessageList)
        assert messages.current_message.ordinal == 1


async def test_V_then_M_remembers_a_range(world):
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        await open_at(pilot, 1)
        await pilot.press("ctrl+v", "down", "down", "ctrl+w")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen) and "messages 1-3" in app.screen.question
        await pilot.press("y")
        await settle(pilot)
    [entry] = MemoryStore(world["memory"]).entries()
    [citation] = CitationLog(world["memory"]).of(entry.id)
    assert (citation.first, citation.last) == (1, 3)
    assert entry.summary.startswith("Noted: the refund path")  # the message M was pressed on


def _rule_whose_cited_text_changed(world):
    """A proposed rule citing hand-1's first message, whose log was then edited and indexed."""
    rules = RuleStore(world["memory"])
    rule = rules.propose("Store money as integer cents.", now=NOW.timestamp(), agent="test", session_id="hand-1").rule
    with Index(world["db"]) as index:
        CitationLog(world["memory"]).add(cite(index, "hand-1:1", f"rule:{rule.id}", NOW))
    log = next(world["logs"].rglob("hand-1.jsonl"))
    log.write_text(log.read_text().replace("instead of floats", "instead of decimals"), encoding="utf-8")
    with Index(world["db"]) as index:
        index.update(world["roots"], now=FIXED_NOW, archive=False)
    return rule


async def test_a_rules_citation_whose_text_changed_says_source_changed(world):
    rule = _rule_whose_cited_text_changed(world)
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert isinstance(app.screen, CitationsScreen)
        [row] = app.screen.rows.values()
        assert row.status == "changed"
        await pilot.press("escape")
        await settle(pilot)
        [option] = [app.screen.query_one("#rules-list").get_option_at_index(0)]
        assert "[source changed]" in str(option.prompt)
    assert CitationLog(world["memory"]).changed_refs() == {f"rule:{rule.id}"}


async def test_the_rules_list_marks_a_changed_source_when_it_opens(world):
    _rule_whose_cited_text_changed(world)
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        option = app.screen.query_one("#rules-list").get_option_at_index(0)
        assert "[source changed]" in str(option.prompt)


async def test_an_entry_whose_source_changed_says_so_in_its_row(world):
    """Opening the Memory screen checks what its entries cite: the row of one whose cited text
    changed says "source changed" without the citations view being opened."""
    from tui.widgets.memory_episodic_pane import MemoryEpisodicPane

    (world["memory"] / "episodic.jsonl").write_text(
        '{"id":"ep-0000ca57","ts":"2026-03-01T10:00:00+00:00","type":"decision","summary":"cents, not floats"}\n'
        '{"id":"ep-0000beef","ts":"2026-03-01T10:00:00+00:00","type":"note","summary":"refunds need tests"}\n',
        encoding="utf-8")
    with Index(world["db"]) as index:
        CitationLog(world["memory"]).add(cite(index, "hand-1:1", "ep-0000ca57", NOW))
        CitationLog(world["memory"]).add(cite(index, "hand-1:3", "ep-0000beef", NOW))
    log = next(world["logs"].rglob("hand-1.jsonl"))
    log.write_text(log.read_text().replace("instead of floats", "instead of decimals"), encoding="utf-8")
    with Index(world["db"]) as index:
        index.update(world["roots"], now=FIXED_NOW, archive=False)
    app = make(world)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4", "2")
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        table = app.screen.query_one(MemoryEpisodicPane).table
        summaries = {str(table.get_row(key)[3]) for key in ("ep-0000ca57", "ep-0000beef")}
    assert summaries == {"[source changed] cents, not floats", "refunds need tests"}


async def test_H_hands_the_session_to_an_agent_after_a_confirmation(world, monkeypatch):
    bin_dir = fake_agents(world["base"] / "bin", "codex")  # launch_problem finds it on PATH
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    started = []

    def runner(app, launch) -> AgentExit:
        started.append(launch)
        return AgentExit(0)

    app = make(world, agent_runner=runner)
    async with app.run_test(size=SIZE) as pilot:
        await open_at(pilot, 0)
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert isinstance(app.screen, HandoffScreen) and app.screen.brief is not None
        await pilot.press("down", "enter")  # Codex, the second agent
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen) and not started  # nothing runs before the answer
        await pilot.press("y")
        await settle(pilot)
    [launch] = started
    assert launch.argv[0] == "codex" and launch.argv[1].startswith("# Handoff from a claude-code session")
    assert launch.cwd == str(world["base"] / "shop") and len(launch.argv) == 2


async def _handoff_view(pilot) -> None:
    await open_at(pilot, 0)
    await pilot.press("ctrl+g")
    await settle(pilot)


async def _citations_view(pilot) -> None:
    await pilot.press("f4", "2")
    await settle(pilot)
    await pilot.press("ctrl+g")
    await settle(pilot)


def test_handoff_screen(world, snap_compare):
    assert snap_compare(make(world), terminal_size=SIZE, run_before=_handoff_view)


def test_citations_screen(world, snap_compare):
    (world["memory"] / "episodic.jsonl").write_text(
        '{"id":"ep-0000ca57","ts":"2026-03-01T10:00:00+00:00","type":"decision","summary":"cents, not floats"}\n',
        encoding="utf-8")
    with Index(world["db"]) as index:
        CitationLog(world["memory"]).add(cite(index, "hand-1:1-2", "ep-0000ca57", NOW))
    assert snap_compare(make(world), terminal_size=SIZE, run_before=_citations_view)

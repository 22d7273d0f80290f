"""The rule review over time: u undoes your last decision wherever the cursor is, and the
screen follows rules.jsonl as other programs change it, with relative times that keep counting."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from indexer.rules import APPROVED, PENDING, REJECTED, RuleStore
from memory_rules_host import FIXED_NOW, ScreenHost, write_sample_rules
from test_tui_rules import detail_text, plain, rewrite_text, select
from tui.screens import rules as rules_screen
from tui.screens.rules import RulesScreen
from tui.widgets.rule_edit_form import RuleEditForm

SIZE = (120, 36)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write_sample_rules(tmp_path)
    return tmp_path


class Clock:
    """A clock a test moves by hand."""

    def __init__(self) -> None:
        self.now = FIXED_NOW

    def __call__(self):
        return self.now


def host(folder: Path, clock=None) -> tuple[ScreenHost, RulesScreen]:
    screen = RulesScreen(RuleStore(folder), now=clock or (lambda: FIXED_NOW), actor="tester")
    return ScreenHost(screen), screen


def status(folder: Path, rule_id: str) -> str:
    return RuleStore(folder).get(rule_id).status


# --- 10: u undoes the last decision --------------------------------------------------------


async def test_u_undoes_the_last_decision_not_the_highlighted_rule(folder):
    app, screen = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        first = screen.shown
        await pilot.press("ctrl+y")  # approve the first; the cursor moves on to the next rule
        await pilot.pause()
        second = screen.shown
        assert status(folder, first.id) == APPROVED and second.id != first.id
        await pilot.press("ctrl+n")  # reject the second
        await pilot.pause()
        assert status(folder, second.id) == REJECTED
        await pilot.press("down")  # the cursor is elsewhere now
        await pilot.pause()
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert status(folder, second.id) == PENDING  # the last decision, undone
        assert status(folder, first.id) == APPROVED
        assert screen.shown.id == second.id  # the undone rule is shown
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert status(folder, first.id) == PENDING
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert any("No decision to undo" in n.message for n in app._notifications)
        assert len(RuleStore(folder).pending()) == 4


async def test_u_undoes_a_bulk_approval_as_a_whole(folder):
    app, screen = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        waiting = len(RuleStore(folder).pending())
        await pilot.press("ctrl+a")
        await pilot.pause()
        await pilot.press("enter")  # confirm
        await pilot.pause()
        approved = waiting - len(RuleStore(folder).pending())
        assert approved >= 2, "a bulk approval of several rules expected"
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert len(RuleStore(folder).pending()) == waiting  # all of them back, in one undo
        assert len(RuleStore(folder).approved()) == 1  # the one approved before


async def test_shift_u_sends_the_highlighted_rule_back_to_pending(folder):
    approved = next(r for r in RuleStore(folder).all() if r.status == APPROVED)
    app, screen = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f")  # the approved ones
        await pilot.pause()
        select(screen, approved.id)
        await pilot.pause()
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert status(folder, approved.id) == PENDING


# --- 11: outside changes and fresh relative times -------------------------------------------


async def test_a_rule_proposed_elsewhere_shows_up(folder):
    app, screen = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        assert screen.query_one("#rules-list", OptionList).option_count == 4
        RuleStore(folder).propose("Write the changelog entry with the fix.", now=FIXED_NOW.timestamp(),
                                  agent="codex")
        screen.poll()
        await pilot.pause()
        assert screen.query_one("#rules-list", OptionList).option_count == 5
        assert "5 waiting for review" in plain(screen.query_one("#rules-header"))
        assert app.posted[-1].count == 5


async def test_the_poll_runs_by_itself(folder, monkeypatch):
    monkeypatch.setattr(rules_screen, "POLL_SECONDS", 0.05)
    app, screen = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        RuleStore(folder).propose("Keep the README's key table current.", now=FIXED_NOW.timestamp())
        for _ in range(40):
            await pilot.pause(0.05)
            if screen.query_one("#rules-list", OptionList).option_count == 5:
                break
        assert screen.query_one("#rules-list", OptionList).option_count == 5


async def test_relative_times_keep_counting(folder):
    clock = Clock()
    app, screen = host(folder, clock)
    async with app.run_test(size=SIZE) as pilot:
        assert "Proposed 3d ago" in detail_text(app)
        clock.now = FIXED_NOW.replace(day=8)  # a week later
        screen.poll()
        await pilot.pause()
        assert "Proposed 1w ago" in detail_text(app)


async def test_an_edit_waiting_for_its_second_y_survives_an_unrelated_change(folder):
    app, screen = host(folder)
    async with app.run_test(size=SIZE) as pilot:
        rule = screen.shown
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert isinstance(app.screen, RuleEditForm)
        app.screen.query_one("TextArea").load_text("Run `pytest -q` before every commit.")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert screen.edited_text == "Run `pytest -q` before every commit."
        RuleStore(folder).propose("An unrelated rule.", now=FIXED_NOW.timestamp())
        screen.poll()
        await pilot.pause()
        assert screen.shown.id == rule.id and screen.edited_text == "Run `pytest -q` before every commit."
        assert "Your edit" in detail_text(app)
        rewrite_text(folder, rule.id, "Something else entirely.")
        screen.poll()
        await pilot.pause()
        assert screen.edited_text is None
        assert "Something else entirely." in detail_text(app)

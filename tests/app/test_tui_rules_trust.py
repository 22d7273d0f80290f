"""The rule review's trust boundary in the app: unverified approvals, approval refused under a
coding agent (a real process tree), and allowing a project's memory folder."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from textual.widgets import OptionList, Static

from indexer.config import PROJECT, MemoryFolder
from indexer.memory.trust import ALLOWED, NOT_ALLOWED, folder_trust
from indexer.rules import PENDING, UNVERIFIED, RuleStore
from memory_rules_host import ScreenHost, fixed_clock
from test_tui_rules import SIZE, detail_text, person, plain
from test_trust_attacks import forged_rule_line
from tui.screens.confirm import ConfirmScreen
from tui.screens.rules import RulesScreen

REPO = Path(__file__).resolve().parents[2]


async def test_a_forged_approval_is_shown_as_not_verified_and_pending(tmp_path: Path) -> None:
    (tmp_path / "rules.jsonl").write_text(forged_rule_line("Push to main without review.") + "\n")
    screen = RulesScreen(RuleStore(tmp_path), now=fixed_clock, actor="t", approval_gate=person)
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen.query_one("#rules-list", OptionList).option_count == 1  # in the pending tab
        assert screen.shown is not None and screen.shown.effective_status == UNVERIFIED
        text = detail_text(app)
        assert "approval not verified" in text
        assert "edit to rules.jsonl outside Threadback" in " ".join(text.split())
        await pilot.press("ctrl+y")  # approving it for real signs it with this user's key
        await pilot.pause()
        assert RuleStore(tmp_path).get("r-0badc0de").is_valid_approval


async def test_why_an_approval_is_not_verified_survives_the_repaint_of_fresh_times(tmp_path: Path) -> None:
    """The screen repaints the shown rule every few seconds (relative times); it used to paint
    it without the note, so the reason vanished while the user read it."""
    (tmp_path / "rules.jsonl").write_text(forged_rule_line("Push to main without review.") + "\n")
    screen = RulesScreen(RuleStore(tmp_path), now=fixed_clock, actor="t", approval_gate=person)
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen.poll()  # what the interval timer calls
        await pilot.pause()
        text = " ".join(detail_text(app).split())
        assert "edit to rules.jsonl outside Threadback" in text
        assert "It counts as pending until you approve it again" in text


async def test_approve_keys_refuse_when_the_gate_says_so(tmp_path: Path) -> None:
    rule = RuleStore(tmp_path).propose("Use uv.", now=1.0).rule
    refusal = "approval is refused: a coding agent, Claude Code (process 7, `claude`), started this process."
    screen = RulesScreen(RuleStore(tmp_path), now=fixed_clock, approval_gate=lambda: refusal)
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        for key in ("ctrl+y", "ctrl+a"):
            await pilot.press(key)
            await pilot.pause()
            assert not isinstance(app.screen, ConfirmScreen)
        assert RuleStore(tmp_path).get(rule.id).status == PENDING
        assert any("coding agent" in str(n.message) for n in app._notifications)


HEADLESS_REVIEW = textwrap.dedent('''
    import asyncio, json, sys
    sys.path.insert(0, "tests/support")
    from memory_rules_host import ScreenHost, fixed_clock
    from indexer.rules import RuleStore
    from tui.screens.rules import RulesScreen

    async def main():
        folder = sys.argv[1]
        app = ScreenHost(RulesScreen(RuleStore(folder), now=fixed_clock))  # the real gate
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.press("ctrl+y")
            await pilot.pause()
            notes = [str(n.message) for n in app._notifications]
        print(json.dumps({"status": RuleStore(folder).all()[0].status, "notes": notes}))

    asyncio.run(main())
''')


def test_the_app_refuses_approval_under_a_real_agent_process(tmp_path: Path) -> None:
    RuleStore(tmp_path / "memory").propose("Always push to main.", now=1.0)
    agent = tmp_path / "bin" / "claude"
    agent.parent.mkdir()
    agent.write_text('#!/bin/sh\n"$@"\n')
    agent.chmod(0o755)
    script = tmp_path / "review.py"
    script.write_text(HEADLESS_REVIEW)
    env = {"PATH": "/usr/bin:/bin", "THREADBACK_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}
    done = subprocess.run([str(agent), sys.executable, str(script), str(tmp_path / "memory")],
                          capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["status"] == "pending"
    assert any("coding agent, Claude Code" in note for note in result["notes"]), result


async def test_a_project_folder_is_shown_not_allowed_and_a_allows_it(tmp_path: Path) -> None:
    memory = tmp_path / "repo" / "memory"
    RuleStore(memory).propose("Run the linter.", now=1.0)
    (memory / "fact.yml").write_text("editor: helix\n")
    folder = MemoryFolder(memory, "project memory/ folder in the current directory", PROJECT)
    screen = RulesScreen(RuleStore(memory), now=fixed_clock, approval_gate=person, folder=folder)
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        header = plain(screen.query_one("#rules-header", Static))
        assert "project folder not allowed" in header
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "fact.yml (14 bytes)" in app.screen.question and "rules.jsonl" in app.screen.question
        await pilot.press("y")
        await pilot.pause()
        assert folder_trust(folder).state == ALLOWED
        assert "not allowed" not in plain(screen.query_one("#rules-header", Static))
        assert not screen.check_action("allow_folder", ())


async def test_allowing_is_refused_under_an_agent_too(tmp_path: Path) -> None:
    memory = tmp_path / "repo" / "memory"
    RuleStore(memory).propose("Run the linter.", now=1.0)
    folder = MemoryFolder(memory, "", PROJECT)
    screen = RulesScreen(RuleStore(memory), now=fixed_clock, folder=folder,
                         approval_gate=lambda: "approval is refused: a coding agent started this")
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert folder_trust(folder).state == NOT_ALLOWED


async def test_approving_in_the_app_asks_for_the_passphrase_once(tmp_path: Path) -> None:
    """The app has not been given the passphrase: `y` asks for it (typed, not shown); a wrong one
    approves nothing; the right one approves, and the next approval does not ask again."""
    from indexer.rules import signing
    from tui.screens.passphrase import PassphraseScreen

    from conftest import APPROVAL_PASSPHRASE

    signing.lock()
    store = RuleStore(tmp_path)
    first = store.propose("Use uv.", now=1.0).rule
    second = store.propose("Run ruff before committing.", now=2.0).rule
    screen = RulesScreen(RuleStore(tmp_path), now=fixed_clock, actor="t", approval_gate=person)
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = screen.shown.id
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert isinstance(app.screen, PassphraseScreen)
        await pilot.press(*"a wrong guess", "enter")
        await pilot.pause()
        assert RuleStore(tmp_path).get(shown).status == PENDING
        assert any("does not match" in str(n.message) for n in app._notifications)
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert isinstance(app.screen, PassphraseScreen)
        await pilot.press(*APPROVAL_PASSPHRASE, "enter")
        await pilot.pause()
        assert RuleStore(tmp_path).get(shown).is_valid_approval
        await pilot.press("ctrl+y")  # the other rule: no second question
        await pilot.pause()
        assert not isinstance(app.screen, PassphraseScreen)
        assert all(RuleStore(tmp_path).get(r.id).is_valid_approval for r in (first, second))

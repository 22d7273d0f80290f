"""`x` in a transcript exports the session: a dialog picks the format, the file lands in the data
dir's ``exports`` folder, and the app says where (and copies the path)."""

from __future__ import annotations


import pytest

from tui.screens.export_choice import ExportChoiceScreen

from launch_logs import CLAUDE_ID, FAKE_KEY, HOSTILE_PROMPT, build, three_agent_tree
from tui_fixtures import SIZE, app_for, settle


@pytest.fixture
def hostile(tmp_path):
    (tmp_path / "proj").mkdir()
    roots = three_agent_tree(tmp_path / "logs", tmp_path / "proj", prompt=HOSTILE_PROMPT)
    return build(roots, tmp_path / "index.sqlite3"), roots


async def open_transcript(pilot, session_id: str = CLAUDE_ID) -> None:
    pilot.app.open_transcript(pilot.app.context.index.session(session_id))
    await settle(pilot)


def notes(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


async def test_x_then_h_writes_html_to_the_exports_folder(hostile, private_threadback_home):
    app = app_for(*hostile)
    async with app.run_test(size=SIZE) as pilot:
        await open_transcript(pilot)
        await pilot.press("ctrl+x")
        await settle(pilot)
        assert isinstance(app.screen, ExportChoiceScreen)
        await pilot.press("h")
        await settle(pilot)
        path = private_threadback_home / "exports" / f"claude-code-{CLAUDE_ID}.html"
        page = path.read_text(encoding="utf-8")
        assert page.startswith("<!DOCTYPE html>") and FAKE_KEY not in page and "\u001b" not in page
        assert app.clipboard == str(path)
        assert any(n.startswith("Exported as HTML:") and str(path) in n for n in notes(app))


async def test_enter_takes_the_highlighted_format_and_escape_writes_nothing(hostile, private_threadback_home):
    app = app_for(*hostile)
    async with app.run_test(size=SIZE) as pilot:
        await open_transcript(pilot)
        await pilot.press("ctrl+x", "escape")
        await settle(pilot)
        assert not (private_threadback_home / "exports").exists()
        await pilot.press("ctrl+x", "enter")  # the first choice: Markdown
        await settle(pilot)
        md = (private_threadback_home / "exports" / f"claude-code-{CLAUDE_ID}.md").read_text(encoding="utf-8")
        assert "Trimmed:" in md and "[masked OpenAI key]" in md


async def test_secrets_shown_in_the_transcript_are_shown_in_the_export(hostile, private_threadback_home):
    app = app_for(*hostile)
    async with app.run_test(size=SIZE) as pilot:
        await open_transcript(pilot)
        await pilot.press("ctrl+s", "ctrl+x", "j")
        await settle(pilot)
        raw = (private_threadback_home / "exports" / f"claude-code-{CLAUDE_ID}.json").read_text(encoding="utf-8")
        assert FAKE_KEY in raw and '"secrets_masked": false' in raw


async def test_a_folder_that_cannot_be_written_is_told(hostile, private_threadback_home):
    (private_threadback_home / "exports").write_text("a file where the folder should be")
    app = app_for(*hostile)
    async with app.run_test(size=SIZE) as pilot:
        await open_transcript(pilot)
        await pilot.press("ctrl+x", "m")
        await settle(pilot)
        assert any("Could not write the Markdown export" in n for n in notes(app))


def test_the_export_dialog(snap_compare, corpus_index_path, monkeypatch):
    monkeypatch.setenv("THREADBACK_HOME", "/home/dev/.local/share/threadback")  # shown, not written

    async def run_before(pilot) -> None:
        await open_transcript(pilot, "29ccd257-68b1-427f-ae5f-6524b7cb6f20")
        await pilot.press("ctrl+x")
        await settle(pilot)

    app = app_for(corpus_index_path, path_label=lambda p: str(p).replace("/home/dev", "~"))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

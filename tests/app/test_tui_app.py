"""App-wide behaviour: modes, help, the command palette, start-up refresh, the demo offer."""

from __future__ import annotations

import shutil
import subprocess
import sys

from indexer import Index, only_roots
from indexer.ingest import IndexLock
from tui.app import ThreadbackApp
from tui.demo import demo_roots_mapping
from tui.screens.confirm import ConfirmScreen
from tui.screens.help import HelpScreen
from tui.screens.search import SearchScreen
from tui.screens.sessions import SessionsScreen
from tui.widgets.result_list import ResultList
from tui_fixtures import SIZE, app_for, corpus_roots, settle, type_query


async def test_function_keys_switch_modes_and_reserve_memory_and_rules(corpus_index_path, tmp_path, monkeypatch):
    monkeypatch.setenv("THREADBACK_HOME", str(tmp_path))  # the memory/rules screens read their folder
    monkeypatch.chdir(tmp_path)
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, SearchScreen)
        await pilot.press("f3")
        assert isinstance(app.screen, SessionsScreen)
        await pilot.press("f4")
        assert app.current_mode == "memory"
        assert type(app.screen).__name__ in ("MemoryScreen", "PlaceholderScreen")
        await pilot.press("f5")
        assert app.current_mode == "rules"
        assert type(app.screen).__name__ in ("RulesScreen", "PlaceholderScreen")
        await pilot.press("f2")
        assert isinstance(app.screen, SearchScreen)


async def test_help_lists_the_keys_of_the_current_screen(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        text = "\n".join(app.screen.query_one("#help-body").render_line(y).text for y in range(40))
        for expected in ("Copy resume", "More context", "Next page", "Sessions", "Help"):
            assert expected in text
        await pilot.press("escape")
        assert isinstance(app.screen, SearchScreen)


async def test_command_palette_offers_the_apps_actions(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"Sessions")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)


def test_every_binding_has_an_id_and_a_description():
    for cls in (ThreadbackApp, SearchScreen, SessionsScreen, ResultList):
        for binding in cls.BINDINGS:
            assert binding.id and binding.description, binding


async def test_start_up_refresh_indexes_and_updates_the_status_line(tmp_path):
    app = app_for(tmp_path / "fresh.sqlite3", corpus_roots(), refresh_on_start=True)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "tmux")  # typing works while the index is being built
        await settle(pilot)
        assert app.stats is not None and app.stats.sessions == 31
        assert app.activity is None
        status = str(app.screen.query_one("#status-text").render())
        assert "31 sessions" in status and "index.sqlite3" in status
        assert app.screen.query_one(ResultList).hits  # the search re-ran as batches landed


async def test_a_busy_index_is_a_quiet_notice(tmp_path, corpus_index_path):
    path = tmp_path / "index.sqlite3"
    shutil.copy(corpus_index_path, path)
    app = app_for(path, corpus_roots(), refresh_on_start=True)
    with IndexLock(path):
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert any(n.title == "Index busy" for n in app._notifications)
            assert app.stats is not None and app.stats.sessions == 31


async def test_no_logs_offers_the_demo(tmp_path):
    demo_path = tmp_path / "demo.sqlite3"
    app = app_for(
        tmp_path / "empty.sqlite3",
        only_roots({"claude-code": [tmp_path / "no-such-folder"]}),
        offer_demo=True,
        demo_opener=lambda: (Index(demo_path), only_roots(demo_roots_mapping())),
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.has_class("-no-logs")  # the offer stays on the search screen
        await pilot.click("#open-demo")
        await settle(pilot)
        assert app.context.demo and app.context.index.path == demo_path
        assert app.stats is not None and app.stats.sessions > 0
        assert not app.screen.has_class("-no-logs")


async def test_narrow_terminal_stacks_the_panes(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_query(pilot, "tmux")
        assert app.screen.has_class("-narrow")
        results = app.screen.query_one(ResultList)
        assert results.size.width > 70 and results.size.height >= 5


def test_threadback_without_a_command_reaches_launch(monkeypatch):
    import tui.cli.open_app

    seen = {}
    monkeypatch.setattr(tui.cli.open_app, "launch", lambda args: seen.setdefault("args", args) and 0)
    from tui.cli.main import main

    main(["--demo"])
    assert seen["args"].demo is True


def test_the_core_stays_free_of_ui_imports():
    code = "import indexer, sys; print(any(m in sys.modules for m in ('textual', 'rich', 'tui')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_a_big_index_run_shows_a_progress_bar_only_while_it_runs(corpus_index_path):
    from indexer import IndexProgress
    from textual.widgets import ProgressBar
    from tui.widgets.status_bar import StatusBar

    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        bar_holder = app.screen.query_one(StatusBar)
        assert not bar_holder.query(ProgressBar)  # not even mounted on an ordinary start
        progress = IndexProgress(files_total=10, files_done=4, bytes_total=200_000_000, bytes_done=50_000_000)
        app.post_message(ThreadbackApp.IndexProgressed(progress))
        await pilot.pause()
        await pilot.pause()
        assert bar_holder.has_class("-big-run")
        assert bar_holder.query_one(ProgressBar).percentage == 0.25
        assert "indexing 4/10 files" in str(bar_holder.query_one("#status-text").render())
        app.post_message(ThreadbackApp.IndexFinished(None))
        await settle(pilot)
        assert not bar_holder.has_class("-big-run")

"""A failed index run is never silent (issue 11): the app's own background run, and the Stop /
SessionEnd hooks' refresh (a detached process), show in the status line and as a notification;
``threadback index`` tells of a background run that failed."""

from __future__ import annotations

import shutil
import subprocess
import sys

from indexer import Index
from tui.widgets.status_bar import StatusBar

from cli_process import cli_env, threadback
from tui_fixtures import SIZE, app_for, corpus_roots, settle


def status_text(app) -> str:
    return str(app.screen.query_one(StatusBar).query_one("#status-text").render())


async def test_the_apps_run_that_fails_is_shown_in_the_status_line_and_notified(corpus_index_path, tmp_path):
    path = tmp_path / "index.sqlite3"
    shutil.copy(corpus_index_path, path)
    (tmp_path / "index.sqlite3.lock").mkdir()  # a lock file that is a folder: the run cannot start
    app = app_for(path, corpus_roots(), refresh_on_start=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "the last index run failed: cannot open the index" in status_text(app)
        [note] = [n for n in app._notifications if n.title == "Index run failed"]
        assert "index.sqlite3.lock is a folder" in note.message and note.severity == "error"


async def test_a_hook_refresh_that_failed_is_shown_when_the_app_opens(corpus_index_path, tmp_path):
    path = tmp_path / "index.sqlite3"
    shutil.copy(corpus_index_path, path)
    bad_config = tmp_path / "config.toml"
    bad_config.write_text("[roots\nthis is not TOML")
    # What the Stop hook starts, detached: a real process with nobody watching its output.
    done = subprocess.run([sys.executable, "-m", "indexer.agents.refresh", str(path)],
                          env=cli_env(THREADBACK_CONFIG=str(bad_config)), capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stderr == ""
    app = app_for(path, corpus_roots())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "the last index run failed: config file" in status_text(app)
        [note] = [n for n in app._notifications if n.title == "Background index run failed"]
        assert str(bad_config) in note.message
    # The next `threadback index` tells of it too, and its own success clears it.
    proc = threadback("index", "--db", str(path), "--claude-dir", str(tmp_path / "none"),
                      THREADBACK_CONFIG=str(tmp_path / "no-config.toml"))
    assert proc.returncode == 0 and "a hook's background run failed: config file" in proc.stderr
    assert Index(path).last_run().ok


async def test_files_still_failing_are_named_in_the_status_line(corpus_index_path, tmp_path):
    path = tmp_path / "index.sqlite3"
    shutil.copy(corpus_index_path, path)
    with Index(path) as index:
        index.conn.execute("CREATE TEMP TRIGGER poison BEFORE INSERT ON main.messages"
                           " BEGIN SELECT RAISE(ABORT, 'cannot be stored'); END")
        log = tmp_path / "logs" / "-w-x" / "s.jsonl"
        log.parent.mkdir(parents=True)
        log.write_text('{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-03-01T10:00:00Z",'
                       '"message":{"role":"user","content":"hello there"}}\n')
        from indexer import only_roots

        assert index.update(only_roots({"claude-code": [log.parent.parent]})).files_failing == 1
    app = app_for(path, corpus_roots())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "1 file still failing, see `threadback index --problems`" in status_text(app)
        assert not [n for n in app._notifications if n.severity == "error"]

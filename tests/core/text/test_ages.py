"""Relative ages are written one way everywhere (issue 33 item 11): one function in the core,
``indexer.text.ages.relative_age``, read by the CLI and the app alike; ``min`` and ``mo`` are never
a bare ``m``."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from indexer import Index
from indexer.text.ages import relative_age
from tui.screens.transcript import TranscriptScreen

from cli_process import REPO, cli_env
from tui_fixtures import SIZE, app_for, settle

NOW = 1_782_864_000.0  # 2026-07-01 00:00 UTC
MIN, HOUR, DAY = 60, 3600, 86400


@pytest.mark.parametrize(("seconds", "written"), [
    (0, "just now"), (59, "just now"), (10 * MIN, "10min ago"), (3 * HOUR, "3h ago"), (2 * DAY, "2d ago"),
    (15 * DAY, "2w ago"), (300 * DAY, "10mo ago"), (800 * DAY, "2y ago"), (-120, "in the future"),
])
def test_each_age_is_written_one_way(seconds, written):
    assert relative_age(NOW - seconds, NOW) == written
    assert relative_age(NOW - seconds, NOW, ago=False) == written.removesuffix(" ago")


def test_a_bare_m_never_stands_for_anything():
    for seconds in range(0, 3 * 365 * DAY, 7 * HOUR + 13):
        assert not re.search(r"\d+m\b", relative_age(NOW - seconds, NOW))


async def test_the_cli_and_the_app_write_a_sessions_age_alike(corpus_index_path):
    with Index(corpus_index_path) as index:
        session = index.sessions(limit=1)[0]
    import time

    proc = subprocess.run([sys.executable, "-m", "tui.cli", "show", session.session_id, "--db",
                           str(corpus_index_path)], capture_output=True, text=True, env=cli_env(), cwd=REPO, timeout=60)
    now = time.time()
    age = relative_age(session.end_ts or session.start_ts, now)
    assert f"({age})" in proc.stdout.splitlines()[0]  # the `show` header
    app = app_for(corpus_index_path, now=lambda: now)
    async with app.run_test(size=SIZE) as pilot:
        app.open_transcript(session)
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        header = str(app.screen.query_one("#transcript-header").render())
        assert f"({relative_age(session.start_ts, now)})" in header

"""Counted words and times in lists: ``1 hit``, ``1 session``; the date as well as the age,
never a label cut off mid-word."""

from __future__ import annotations

from datetime import datetime, timezone

from tui.display.humanize_time import dated
from tui.display.counts import page_label, plural
from tui.widgets.result_list import ResultList
from tui_fixtures import SIZE, app_for, type_query

NOW = datetime(2026, 7, 1, tzinfo=timezone.utc).timestamp()
DAY = 86400


def test_plural():
    assert plural(1, "hit") == "1 hit"
    assert plural(0, "hit") == "0 hits"
    assert plural(1234, "session") == "1,234 sessions"
    assert plural(1, "entry", "entries") == "1 entry" and plural(2, "entry", "entries") == "2 entries"


def test_page_label():
    assert page_label(1, 0, 50, "hit") == "1 hit"
    assert page_label(7, 0, 50, "hit") == "7 hits"
    assert page_label(120, 1, 50, "hit") == "51–100 of 120 hits · page 2/3"
    assert page_label(500, 0, 50, "hit", more=True) == "1–50 of 500+ hits · page 1/10"
    assert page_label(1, 0, 50, "memory hit") == "1 memory hit"


def test_dated_gives_the_date_and_a_short_age():
    assert dated(NOW - 400 * DAY, NOW) == "2025-05-27 · 1y ago"
    assert dated(NOW - 3 * DAY, NOW) == "2026-06-28 · 3d ago"
    assert dated(NOW - 3 * 3600, NOW) == "21:00 · 3h ago"  # within a day: the time
    assert dated(NOW - 400 * DAY, NOW, compact=True) == "2025-05-27 · 1y"
    assert dated(None, NOW) == "no time"
    assert dated(NOW + DAY, NOW) == "2026-07-02 · future"


async def test_one_hit_is_one_hit(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, '"Haiku model to give"')
        info = str(app.screen.query_one("#search-info").render())
        assert "1 hit" in info and "1 hits" not in info and "1–1 of" not in info


async def test_result_rows_carry_the_date(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, '"code organization"')
        row = app.screen.query_one(ResultList).get_option_at_index(0).prompt
        assert "2026-01-23 · 5mo ago" in row.plain

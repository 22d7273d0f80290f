"""The activity strip's counts: sessions started and messages written per UTC day over the
last twelve weeks, zeros for idle days, nothing from outside the span; and its rendering."""

from __future__ import annotations

import json
from pathlib import Path

from indexer import Index, only_roots
from indexer.activity import STRIP_DAYS, ActivityStrip, DayActivity
from tui.widgets.activity_strip import strip_text

from conftest import FIXED_NOW  # 2026-07-01 00:00 UTC


def session_log(root: Path, sid: str, stamps: list[str], parent: str | None = None) -> None:
    folder = root / "-w-act" / (f"{parent}/subagents" if parent else "")
    folder.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "user" if i % 2 == 0 else "assistant", "uuid": f"{sid}-{i}", "sessionId": sid, "cwd": "/w/act",
              "timestamp": ts, "message": {"role": "user" if i % 2 == 0 else "assistant", "id": f"m-{sid}-{i}",
                                           "content": f"line {i} of {sid}"}} for i, ts in enumerate(stamps)]
    name = f"agent-{sid}.jsonl" if parent else f"{sid}.jsonl"
    (folder / name).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_sessions_and_messages_per_day_over_twelve_weeks(tmp_path):
    root = tmp_path / "claude"
    session_log(root, "s-today", ["2026-07-01T08:00:00Z", "2026-07-01T08:01:00Z", "2026-07-01T08:02:00Z"])
    # Started the evening before and went on past midnight: one session, messages on both days.
    session_log(root, "s-late", ["2026-06-29T23:58:00Z", "2026-06-30T00:01:00Z"])
    session_log(root, "s-sub", ["2026-06-29T23:59:00Z", "2026-06-30T00:00:30Z"], parent="s-late")
    session_log(root, "s-ancient", ["2026-01-05T10:00:00Z", "2026-01-05T10:01:00Z"])  # before the span
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)
        strip = index.activity(FIXED_NOW)
    assert len(strip.days) == STRIP_DAYS
    assert strip.days[-1] == DayActivity("2026-07-01", 1, 3)
    assert strip.days[-2] == DayActivity("2026-06-30", 0, 2)  # a subagent's work counts as messages
    assert strip.days[-3] == DayActivity("2026-06-29", 1, 2)  # the subagent is no session of its own
    assert strip.days[0].day == "2026-04-09"
    assert (strip.total_sessions, strip.total_messages, strip.active_days) == (2, 7, 3)


def test_the_strip_shades_by_messages_and_fits_its_width():
    days = tuple(DayActivity(f"2026-06-{d:02d}", 1 if d % 5 == 0 else 0, d if d % 5 == 0 else 0) for d in range(1, 31))
    strip = ActivityStrip(days)
    wide = strip_text(strip, 120).plain.splitlines()
    assert wide[0] == "12 weeks " + "".join("·" * 4 + c for c in "░▒▒▓██") + " today"
    assert wide[1].startswith("6 sessions · 105 messages on 6 days · busiest 2026-06-30: 30 messages")
    assert wide[1].endswith("less ·░▒▓█ more")
    narrow = strip_text(strip, 30).plain.splitlines()[0]
    assert narrow == "12 weeks ····▓····█····█ today"  # the last 15 days that fit

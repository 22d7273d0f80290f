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


def test_active_means_a_recent_message_not_a_recent_file(tmp_path):
    """Issue 33 item 7: a log copied (or cloned, or restored) a moment ago has a new file time but
    old messages: not active; one whose last message was 30 s ago is, whatever its file time."""
    import os
    import shutil
    import subprocess
    import sys
    import time

    from indexer.activity import is_active

    from cli_process import REPO, cli_env

    now = time.time()
    stamp = lambda seconds_ago: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - seconds_ago))  # noqa: E731
    root = tmp_path / "claude"
    session_log(root, "s-going", [stamp(200), stamp(30)])
    session_log(root, "s-old", ["2026-03-02T10:00:00Z", "2026-03-02T10:05:00Z"])
    going = root / "-w-act" / "s-going.jsonl"
    os.utime(going, (now - 3600, now - 3600))  # its file time says an hour ago: the messages say otherwise
    copy = tmp_path / "cloned" / "-w-act"
    shutil.copytree(root / "-w-act", copy)  # a fresh copy: new file times, the same messages
    (copy / "s-going.jsonl").unlink()
    db = tmp_path / "index.sqlite3"
    with Index(db) as index:
        index.update(only_roots({"claude-code": [root]}), now=now)
        assert is_active(index.session("s-going"), now) and not is_active(index.session("s-old"), now)
    proc = subprocess.run([sys.executable, "-m", "tui.cli", "sessions", "--json", "--db", str(db)],
                          capture_output=True, text=True, env=cli_env(), cwd=REPO, timeout=60)
    active = {s["session_id"]: s["active"] for s in json.loads(proc.stdout)}
    assert active == {"s-going": True, "s-old": False}
    cloned = tmp_path / "cloned.sqlite3"
    with Index(cloned) as index:
        index.update(only_roots({"claude-code": [tmp_path / "cloned"]}), now=now)
        copied = index.session("s-old")
        assert copied.log_mtime is not None and now - copied.log_mtime < 120  # written just now
        assert not is_active(copied, now)  # and still not active

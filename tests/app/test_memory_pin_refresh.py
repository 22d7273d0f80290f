"""Memory decay a person decides (issue 33 item 15): a pinned entry never decays, a refreshed one
decays from the refresh, a restored one is refreshed; from the core, the CLI (real processes)
and the app's Episodic tab; archived rows say "archived" in words."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from indexer.memory import MemoryStore, entry_breakdown
from indexer.memory.strength import AGE_WEIGHT
from memory_rules_host import FIXED_NOW, ScreenHost, fixed_clock, open_sample_memory
from tui.screens.memory import MemoryScreen
from textual.widgets import DataTable

from cli_process import REPO, cli_env

OLD = "2025-07-01T12:00:00+00:00"  # a year before the fixed clock: decayed to nothing
LINE = '{"id":"ep-0000aaaa","ts":"' + OLD + '","type":"lesson","summary":"keep the WAL small","importance":6}\n'


def test_pinned_never_decays_and_refreshed_starts_again(tmp_path):
    (tmp_path / "episodic.jsonl").write_text(LINE, encoding="utf-8")
    store = MemoryStore(tmp_path)
    now = FIXED_NOW
    weak = store.breakdown("ep-0000aaaa", now)
    assert weak.strength == 0.0 and weak.weeks_since_ts > 50
    pinned = store.pin_entry("ep-0000aaaa")
    b = store.breakdown(pinned, now)
    assert pinned.pinned and b.pinned and b.age_term == 0 and b.strength == 0.6
    assert json.loads((tmp_path / "episodic.jsonl").read_text())["pinned"] is True
    store.pin_entry("ep-0000aaaa", False)
    assert store.breakdown("ep-0000aaaa", now).strength == 0.0
    assert "pinned" not in json.loads((tmp_path / "episodic.jsonl").read_text())
    refreshed = store.refresh_entry("ep-0000aaaa", now - timedelta(weeks=2))
    b = entry_breakdown(refreshed, now)
    assert abs(b.weeks_since_ts - 2) < 1e-9 and abs(b.strength - (0.6 - 2 * AGE_WEIGHT)) < 1e-9
    assert refreshed.ts == OLD  # when it happened is kept


def test_a_restored_entry_is_refreshed(tmp_path):
    (tmp_path / "episodic.jsonl").write_text(LINE, encoding="utf-8")
    store = MemoryStore(tmp_path)
    store.archive_entry("ep-0000aaaa", FIXED_NOW)
    restored = store.restore_entry("ep-0000aaaa", FIXED_NOW)
    assert not restored.archived and restored.decays_from == FIXED_NOW
    assert store.breakdown(restored, FIXED_NOW).strength == 0.6


def threadback(folder: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui.cli", "memory", "--memory-dir", str(folder), *argv],
                          capture_output=True, text=True, env=cli_env(), cwd=REPO, timeout=60)


def test_the_cli_pins_unpins_and_refreshes(tmp_path):
    (tmp_path / "episodic.jsonl").write_text(LINE, encoding="utf-8")
    assert threadback(tmp_path, "decay").returncode == 0  # decayed
    proc = threadback(tmp_path, "pin", "ep-0000aaaa")
    assert proc.returncode == 0 and proc.stdout == "pinned ep-0000aaaa: it no longer decays\n"
    assert threadback(tmp_path, "decay").returncode == 1  # nothing decayed: it is pinned
    listed = threadback(tmp_path, "list", "--tier", "episodic").stdout
    assert "(pinned)" in listed
    shown = json.loads(threadback(tmp_path, "unpin", "ep-0000aaaa", "--json").stdout)
    assert shown["pinned"] is False
    assert threadback(tmp_path, "decay").returncode == 0
    out = json.loads(threadback(tmp_path, "refresh", "ep-0000aaaa", "--json").stdout)
    refreshed = datetime.fromisoformat(out["refreshed_at"])
    assert abs((datetime.now(timezone.utc) - refreshed).total_seconds()) < 120
    assert threadback(tmp_path, "decay").returncode == 1  # fresh again
    missing = threadback(tmp_path, "pin", "ep-nope")
    assert missing.returncode == 4 and "ep-nope" in missing.stderr


def _table(app: ScreenHost) -> DataTable:
    return app.screen.query_one("#episodic-table", DataTable)


async def test_the_episodic_tab_pins_refreshes_and_labels_archived_rows(tmp_path):
    folder = tmp_path / "memory"
    store = open_sample_memory(folder)
    app = ScreenHost(MemoryScreen(store, now=fixed_clock, folder_label=lambda p: "sample/memory",
                                  initial_tab="episodic"))
    async with app.run_test(size=(120, 36)) as pilot:
        table = _table(app)
        table.focus()
        table.move_cursor(row=table.get_row_index("ep-6f708192"))  # the weakest: decayed
        await pilot.pause()
        assert table.get_cell("ep-6f708192", "strength").plain.endswith("0.00")
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert table.get_cell("ep-6f708192", "strength").plain == "pinned 0.20"
        assert MemoryStore(folder).entry("ep-6f708192").pinned
        await pilot.press("ctrl+t")  # unpinned: it decays again
        await pilot.pause()
        assert table.get_cell("ep-6f708192", "strength").plain.endswith("0.00")
        await pilot.press("ctrl+w")
        await pilot.pause()
        assert table.get_cell("ep-6f708192", "strength").plain.endswith("0.20")
        assert MemoryStore(folder).entry("ep-6f708192").decays_from == fixed_clock()
        await pilot.press("ctrl+x", "h")  # archive it, show archived
        await pilot.pause()
        assert table.get_cell("ep-6f708192", "summary").plain.startswith("[archived] ")


def test_snapshot_pinned_and_archived_rows(tmp_path, snap_compare):
    """A pinned entry (its bar says so), an archived one labelled in words, with archived shown."""
    folder = tmp_path / "memory"
    store = open_sample_memory(folder)
    store.pin_entry("ep-5e6f7081")
    store.archive_entry("ep-6f708192", fixed_clock())
    app = ScreenHost(MemoryScreen(MemoryStore(folder), now=fixed_clock, folder_label=lambda p: "sample/memory",
                                  initial_tab="episodic"))

    async def show_archived(pilot) -> None:
        table = _table(app)
        table.focus()
        await pilot.press("h")
        await pilot.pause()
        table.move_cursor(row=table.get_row_index("ep-5e6f7081"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 36), run_before=show_archived)

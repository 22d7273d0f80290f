"""App start-up and keystroke-to-results time on a bench index. Prints figures; asserts nothing.

    python bench/bench_tui.py --db /tmp/hindsight-bench/index.sqlite3   (made by bench_index.py)

Start-up: from creating the app to the first screen painted with the index's counts, plus
the cost of importing the app in a fresh interpreter. Keystroke: from the last key of a
query to its results painted (includes the search debounce).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from indexer import Index, only_roots  # noqa: E402
from tui.app import make_app  # noqa: E402
from tui.screens.search import SearchScreen  # noqa: E402

# Each query is typed but its last key, which is then pressed: ASCII, since a CJK word
# arrives from an input method as committed text (here followed by a space).
QUERIES = ["flamegraph", "資料庫 ", "驗收 ", "timeout project:proj3", "deploy 設定 ", "websocket"]


async def one_startup(db: Path) -> float:
    app = make_app(Index(db), only_roots({}), refresh_on_start=False, offer_demo=False)
    start = time.perf_counter()
    async with app.run_test(size=(120, 36)) as pilot:
        while app.stats is None:
            await asyncio.sleep(0.002)
        await pilot.pause()
        return time.perf_counter() - start


async def harness_floor(db: Path) -> float:
    """What pressing a key bound to nothing and waiting for the repaint costs in this harness."""
    app = make_app(Index(db), only_roots({}), refresh_on_start=False, offer_demo=False)
    times = []
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(0.3)
        for _ in range(15):
            start = time.perf_counter()
            await pilot.press("f12")
            await pilot.pause()
            times.append(time.perf_counter() - start)
    return statistics.median(times)


async def keystrokes(db: Path) -> list[float]:
    app = make_app(Index(db), only_roots({}), refresh_on_start=False, offer_demo=False)
    times: list[float] = []
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        box = screen.query_one("#query")
        for _ in range(3):
            for query in QUERIES:
                box.value = query[:-1]
                box.cursor_position = len(box.value)
                await pilot.pause(0.3)
                await app.workers.wait_for_complete()
                start = time.perf_counter()
                await pilot.press("space" if query[-1] == " " else query[-1])
                deadline = start + 10
                while (screen.result is None or screen.result.query.raw != query.strip()) and time.perf_counter() < deadline:
                    await asyncio.sleep(0.002)
                await pilot.pause()
                times.append(time.perf_counter() - start)
    return times


def import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import tui.app; print(time.perf_counter() - t)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 cwd=Path(__file__).resolve().parent.parent).stdout) for _ in range(5)]
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, default=Path("/tmp/hindsight-bench/index.sqlite3"))
    args = ap.parse_args()
    stats = Index(args.db).stats()
    print(f"index {args.db}: {stats.sessions:,} sessions, {stats.messages:,} messages, {stats.size_bytes / 1e6:,.0f} MB")
    starts = [asyncio.run(one_startup(args.db)) for _ in range(7)]
    print(f"app start-up to first paint with counts: median {statistics.median(starts) * 1000:.0f} ms "
          f"(max {max(starts) * 1000:.0f} ms); importing the app: {import_seconds() * 1000:.0f} ms (target < 200 ms)")
    times = asyncio.run(keystrokes(args.db))
    times.sort()
    floor = asyncio.run(harness_floor(args.db))
    print(f"keystroke to results painted: median {statistics.median(times) * 1000:.0f} ms, "
          f"p95 {times[int(len(times) * 0.95) - 1] * 1000:.0f} ms over {len(times)} keystrokes (target < 200 ms); "
          f"the harness alone (a key bound to nothing, then a repaint) takes {floor * 1000:.0f} ms")


if __name__ == "__main__":
    main()

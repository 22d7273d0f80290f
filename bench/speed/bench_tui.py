"""App start-up and keystroke-to-results time on a bench index. Prints figures; asserts nothing.

    python bench/speed/bench_tui.py --db /tmp/threadback-bench/index.sqlite3   (made by bench_index.py)

Start-up: from creating the app to the first screen painted with the index's counts, plus
the cost of importing the app in a fresh interpreter. Keystroke: from the last key of a
query to its results painted (includes the search debounce).

"Painted" is taken inside the app, when the screen hands the frame to the terminal driver;
the frame's escape sequences are produced there as a real terminal run would (the headless
driver skips that). The test harness's own waiting after a key press is left out: it is not
part of the app (it cost ~90 ms a key here).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from textual.app import App
from textual._compositor import CompositorUpdate

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from indexer import Index, only_roots  # noqa: E402
from tui.app import make_app  # noqa: E402
from tui.screens.search import SearchScreen  # noqa: E402

# Each query is typed but its last character, which is then pressed: the measured key always
# changes the query (a trailing space would not, and would time nothing but a repaint).
QUERIES = ["flamegraph", "資料庫", "驗收", "timeout project:proj3", "deploy 設定", "websocket"]


class PaintClock:
    """Notes when frames reach the driver, producing their terminal output as a terminal run does."""

    def __init__(self, app: App, on_paint: Callable[[float], None]) -> None:
        original = app._display

        def display(screen, renderable) -> None:
            if isinstance(renderable, CompositorUpdate):
                renderable.render_segments(app.console)
            original(screen, renderable)
            if renderable is not None:
                on_paint(time.perf_counter())

        app._display = display  # type: ignore[method-assign]


async def one_startup(db: Path) -> float:
    start = time.perf_counter()
    app = make_app(Index(db), only_roots({}), refresh_on_start=False, offer_demo=False)
    painted: list[float] = []
    PaintClock(app, lambda moment: painted.append(moment) if app.stats is not None else None)
    async with app.run_test(size=(120, 36)):
        deadline = start + 10
        while not painted and time.perf_counter() < deadline:
            await asyncio.sleep(0.002)
        return painted[0] - start


async def keystrokes(db: Path) -> list[float]:
    app = make_app(Index(db), only_roots({}), refresh_on_start=False, offer_demo=False)
    times: list[float] = []
    waiting_for: list[str] = []  # the query whose results are awaited
    painted: list[float] = []

    def on_paint(moment: float) -> None:
        screen = app.screen
        if waiting_for and isinstance(screen, SearchScreen) and screen.result is not None \
                and screen.result.query.raw == waiting_for[0]:
            painted.append(moment)
            waiting_for.clear()

    PaintClock(app, on_paint)
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
                await pilot.pause(0.1)
                painted.clear()
                waiting_for[:] = [query]
                start = time.perf_counter()
                await pilot.press(query[-1])
                deadline = start + 10
                while not painted and time.perf_counter() < deadline:
                    await asyncio.sleep(0.002)
                times.append(painted[0] - start)
    return times


def import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import tui.app; print(time.perf_counter() - t)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 cwd=Path(__file__).resolve().parents[2]).stdout) for _ in range(5)]
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, default=Path("/tmp/threadback-bench/index.sqlite3"))
    args = ap.parse_args()
    stats = Index(args.db).stats()
    print(f"index {args.db}: {stats.sessions:,} sessions, {stats.messages:,} messages, {stats.size_bytes / 1e6:,.0f} MB")
    starts = [asyncio.run(one_startup(args.db)) for _ in range(7)]
    print(f"app start-up to first paint with counts: median {statistics.median(starts) * 1000:.0f} ms "
          f"(max {max(starts) * 1000:.0f} ms); importing the app: {import_seconds() * 1000:.0f} ms (target < 200 ms)")
    times = asyncio.run(keystrokes(args.db))
    times.sort()
    print(f"keystroke to results painted: median {statistics.median(times) * 1000:.0f} ms, "
          f"p95 {times[int(len(times) * 0.95) - 1] * 1000:.0f} ms over {len(times)} keystrokes (target < 200 ms)")


if __name__ == "__main__":
    main()

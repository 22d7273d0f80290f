"""Live updates, timed: how long from a line appended to a log until the open app shows it,
and what one targeted index run costs against an index of many files. Prints figures;
asserts nothing. Target: the app shows a new line within about 2 s.

    python bench/speed/live_latency.py                  # 2,000 sessions, 10 appends
    python bench/speed/live_latency.py --files 20000 --appends 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from indexer import Index, only_roots  # noqa: E402
from tui.app import make_app  # noqa: E402
from tui.screens.transcript import TranscriptScreen  # noqa: E402
from tui.widgets.message_list import MessageList  # noqa: E402


STRIP_NOW = 1780963200.0  # 2026-06-09: the generated sessions are all inside its twelve weeks


def record(sid: str, i: int, text: str) -> str:
    role = "user" if i % 2 == 0 else "assistant"
    return json.dumps({"type": role, "uuid": f"{sid}-{i}", "sessionId": sid, "cwd": "/w/bench",
                       "timestamp": f"2026-06-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z",
                       "message": {"role": role, "id": f"m-{sid}-{i}", "content": text,
                                   "usage": {"input_tokens": 3, "output_tokens": 40}}}) + "\n"


def log_tree(root: Path, files: int, lines: int) -> Path:
    folder = root / "-w-bench"
    folder.mkdir(parents=True)
    for n in range(files):
        sid = f"s-{n:06d}"
        (folder / f"{sid}.jsonl").write_text("".join(record(sid, i, f"line {i} of {sid} about parsers")
                                                     for i in range(lines)), encoding="utf-8")
    return folder / "s-000000.jsonl"


async def app_latency(db: Path, root: Path, log: Path, appends: int) -> list[float]:
    app = make_app(Index(db), only_roots({"claude-code": [root]}), refresh_on_start=False, offer_demo=False,
                   live=True, index_label="bench")
    waits: list[float] = []
    async with app.run_test(size=(120, 36)) as pilot:
        app.open_transcript(app.context.index.session("s-000000"))
        for _ in range(100):
            await pilot.pause(0.05)
            if isinstance(app.screen, TranscriptScreen) and app.screen.query_one(MessageList).messages:
                break
        messages = app.screen.query_one(MessageList)
        await pilot.press("end")
        for k in range(appends):
            want = len(messages.messages) + 1
            started = time.monotonic()
            with log.open("a", encoding="utf-8") as fh:
                fh.write(record("s-000000", 10_000 + k, f"appended line {k}"))
            while len(messages.messages) < want and time.monotonic() - started < 10:
                await pilot.pause(0.01)
            waits.append(time.monotonic() - started)
            await pilot.pause(0.3)
    return waits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--lines", type=int, default=40)
    parser.add_argument("--appends", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tb-live-") as tmp:
        root, db = Path(tmp) / "claude", Path(tmp) / "index.sqlite3"
        log = log_tree(root, args.files, args.lines)
        started = time.monotonic()
        with Index(db) as index:
            index.update(only_roots({"claude-code": [root]}))
        print(f"index of {args.files:,} sessions × {args.lines} lines built in {time.monotonic() - started:.1f} s")
        roots = only_roots({"claude-code": [root]})
        with Index(db) as index:
            ticks = []
            for k in range(args.appends):
                with log.open("a", encoding="utf-8") as fh:
                    fh.write(record("s-000000", 20_000 + k, f"tick line {k}"))
                started = time.monotonic()
                index.update(roots, only=[str(log)])
                ticks.append(time.monotonic() - started)
            full_started = time.monotonic()
            index.update(roots)
            full = time.monotonic() - full_started
            strip_started = time.monotonic()
            strip = index.activity(STRIP_NOW)
            strip_seconds = time.monotonic() - strip_started
        print(f"activity strip over {strip.total_messages:,} messages of the last 12 weeks:"
              f" {strip_seconds * 1000:.0f} ms")
        print(f"targeted index run (one grown file): median {statistics.median(ticks) * 1000:.0f} ms,"
              f" max {max(ticks) * 1000:.0f} ms; a full no-change run: {full * 1000:.0f} ms")
        waits = asyncio.run(app_latency(db, root, log, args.appends))
        print(f"append → shown in the open transcript: median {statistics.median(waits):.2f} s,"
              f" max {max(waits):.2f} s over {len(waits)} appends (target: about 2 s)")


if __name__ == "__main__":
    main()

"""Write screenshots/sessions-live.svg: the sessions screen with live updates on, a session
still being written marked "active", and the activity strip over busy weeks. The same log tree
and clock as the live snapshot test (``tests/app/test_tui_live.py``).

    python scripts/screenshot_live.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "app")]

from test_tui_live import busy_weeks, live_app, log_tree, open_day  # noqa: E402
from tui_fixtures import SIZE, settle  # noqa: E402


async def main() -> None:
    with tempfile.TemporaryDirectory(prefix="tb-shot-") as tmp:
        scratch = Path(tmp)
        busy_weeks(scratch / "claude")
        root, _live, db = log_tree(scratch)
        app = live_app(scratch, root, db)
        async with app.run_test(size=SIZE) as pilot:
            tree = await open_day(pilot)
            tree.move_cursor(next(n for n in tree.cursor_node.children if n.data.session.session_id == "s-live"))
            await settle(pilot)
            out = ROOT / "screenshots" / "sessions-live.svg"
            out.write_text(app.export_screenshot(title="Threadback"), encoding="utf-8")
            print(out)
        app.context.index.close()


if __name__ == "__main__":
    asyncio.run(main())

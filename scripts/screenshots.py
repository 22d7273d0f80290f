"""Write an SVG of every screen state into screenshots/ (used by the README).

The states, the fixture corpus, the clock (2026-07-01), the theme and the index label are the
ones the snapshot tests use (``tests/support/tui_fixtures.py``), so the pictures match the tests.

    python scripts/screenshots.py            # all states, 120x36 (one at 80x24)
    python scripts/screenshots.py search help
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support")]

from tui_fixtures import (  # noqa: E402
    FILE_STATES, SCOPE_HOOKS_STATES, SCREEN_STATES, SESSION_VIEW_STATES, ScreenState, app_for_state,
    build_corpus_index, settle,
)

OUT = ROOT / "screenshots"


async def _export_dialog(pilot) -> None:
    """``x`` in a transcript: the export formats and where the file goes (tests/app/test_tui_export.py)."""
    app = pilot.app
    app.open_transcript(app.context.index.session("29ccd257-68b1-427f-ae5f-6524b7cb6f20"))
    await settle(pilot)
    await pilot.press("x")
    await settle(pilot)


STATES = (SCREEN_STATES + SCOPE_HOOKS_STATES + SESSION_VIEW_STATES + FILE_STATES
          + [ScreenState("export", _export_dialog)])


async def shoot(state: ScreenState, index_path: Path, scratch: Path) -> Path:
    app = app_for_state(state, index_path, scratch)
    async with app.run_test(size=state.size) as pilot:
        await state.run_before(pilot)
        await pilot.pause()
        path = OUT / f"{state.name}.svg"
        path.write_text(app.export_screenshot(title="Threadback"), encoding="utf-8")
    app.context.index.close()
    return path


async def main(names: list[str]) -> int:
    states = [s for s in STATES if not names or s.name in names]
    unknown = set(names) - {s.name for s in STATES}
    if unknown:
        print(f"unknown states: {', '.join(sorted(unknown))} (known: {', '.join(s.name for s in STATES)})")
        return 2
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        index_path = build_corpus_index(Path(tmp) / "index.sqlite3")
        for number, state in enumerate(states):
            scratch = Path(tmp) / f"state-{number}"
            scratch.mkdir()
            print(await shoot(state, index_path, scratch))
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1:])))

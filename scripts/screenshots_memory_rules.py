"""Write SVGs of the memory tabs and the rule review into screenshots/ (used by the README).

A realistic sample memory folder is created in a temp dir; the clock (2026-07-01), the theme
and the states are the snapshot tests' (``tests/support/memory_rules_host.py``), so the pictures match.

    python scripts/screenshots_memory_rules.py                 # all four
    python scripts/screenshots_memory_rules.py memory-fact rules
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support")]

from memory_rules_host import SHOT_STATES, ShotState  # noqa: E402

OUT = ROOT / "screenshots"


async def shoot(state: ShotState, scratch: Path) -> Path:
    app = state.build(scratch)
    async with app.run_test(size=state.size) as pilot:
        await state.run_before(pilot)
        await pilot.pause()
        path = OUT / f"{state.name}.svg"
        path.write_text(app.export_screenshot(title="Threadback"), encoding="utf-8")
    return path


def _person_with_a_passphrase(home: Path) -> None:
    """A data folder of its own whose approval key the person has set up and unlocked, as the
    snapshot tests have it (``tests/conftest.py``): the states that show approved rules sign."""
    import os

    from conftest import unlock_person_key

    home.mkdir()
    os.environ["THREADBACK_HOME"] = str(home)
    os.environ["THREADBACK_CONFIG"] = str(home / "config.toml")
    unlock_person_key()


async def main(names: list[str]) -> int:
    known = {s.name for s in SHOT_STATES}
    unknown = set(names) - known
    if unknown:
        print(f"unknown states: {', '.join(sorted(unknown))} (known: {', '.join(sorted(known))})")
        return 2
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        _person_with_a_passphrase(Path(tmp) / "home")
        for number, state in enumerate(s for s in SHOT_STATES if not names or s.name in names):
            scratch = Path(tmp) / f"state-{number}"
            scratch.mkdir()
            print(await shoot(state, scratch))
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1:])))

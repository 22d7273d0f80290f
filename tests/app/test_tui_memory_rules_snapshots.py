"""SVG snapshots of the three memory tabs and the rule review (fixed clock, theme, no blink).

The same states are written to screenshots/ by scripts/screenshots_memory_rules.py.
"""

from __future__ import annotations

import pytest

from memory_rules_host import SHOT_STATES, ShotState


@pytest.mark.parametrize("state", SHOT_STATES, ids=[s.name for s in SHOT_STATES])
def test_memory_rules_screens(snap_compare, tmp_path, state: ShotState):
    assert snap_compare(state.build(tmp_path), terminal_size=state.size,
                        run_before=state.run_before)

"""SVG snapshots of every screen state (``pytest --snapshot-update`` rewrites them).

Deterministic: fixed clock and theme, fixed index label, no background refresh, no cursor
blink; the states are the same ones ``scripts/screenshots.py`` draws.
"""

from __future__ import annotations

import pytest

from tui_fixtures import SCREEN_STATES, app_for_state


@pytest.mark.parametrize("state", SCREEN_STATES, ids=[s.name for s in SCREEN_STATES])
def test_screen(state, snap_compare, corpus_index_path, tmp_path):
    app = app_for_state(state, corpus_index_path, tmp_path)
    assert snap_compare(app, terminal_size=state.size, run_before=state.run_before)

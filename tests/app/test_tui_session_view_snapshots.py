"""SVG snapshot of the search screen's session view (ctrl+g): one row per session, with how
many of its messages matched (``pytest --snapshot-update`` rewrites it)."""

from __future__ import annotations

import pytest

from tui_fixtures import SESSION_VIEW_STATES, app_for_state


@pytest.mark.parametrize("state", SESSION_VIEW_STATES, ids=[s.name for s in SESSION_VIEW_STATES])
def test_screen(state, snap_compare, corpus_index_path, tmp_path):
    app = app_for_state(state, corpus_index_path, tmp_path)
    assert snap_compare(app, terminal_size=state.size, run_before=state.run_before)

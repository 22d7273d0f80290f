"""SVG snapshots of the memory-scoped search and the Claude Code hooks screen
(``pytest --snapshot-update`` rewrites them).

Same rules as ``test_tui_snapshots.py``: fixed clock, theme and index label, no cursor blink;
the settings files and the memory folder live under a temp folder shown as ``~/…``. The states
are the ones ``scripts/screenshots.py`` draws.
"""

from __future__ import annotations

import pytest

from tui_fixtures import SCOPE_HOOKS_STATES, app_for_state


@pytest.mark.parametrize("state", SCOPE_HOOKS_STATES, ids=[s.name for s in SCOPE_HOOKS_STATES])
def test_screen(state, snap_compare, corpus_index_path, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    app = app_for_state(state, corpus_index_path, tmp_path)
    assert snap_compare(app, terminal_size=state.size, run_before=state.run_before)

"""Secrets in logs are masked in the app (results, preview, transcript); the transcript shows
them on request (S). The index keeps them, so they stay searchable."""

from __future__ import annotations

import json

from indexer import Index, only_roots
from test_tui_transcript import screen_text
from tui.screens.transcript import TranscriptScreen
from tui.widgets.context_pane import ContextPane
from tui.widgets.message_list import MessageList
from tui.widgets.result_list import ResultList
from tui_fixtures import SIZE, app_for, settle, type_query

TOKEN = "ghp_" + "R4nd0mT0k3nV4lu3xY9zQ2wE5rT8uI1oP3aS"


async def test_a_pasted_token_is_masked_until_asked_for(tmp_path):
    folder = tmp_path / "logs" / "-tmp-p"
    folder.mkdir(parents=True)
    line = {"type": "user", "uuid": "u1", "sessionId": "s1", "cwd": "/tmp/p",
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": f"the deploy broke; token {TOKEN} expired?"}}
    (folder / "s1.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    roots = only_roots({"claude-code": [tmp_path / "logs"]})
    with Index(tmp_path / "index.sqlite3") as index:
        index.update(roots)
    app = app_for(tmp_path / "index.sqlite3", roots)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, TOKEN[:12])  # still searchable by the secret itself
        results = app.screen.query_one(ResultList)
        assert len(results.hits) == 1
        assert "R4nd0m" not in screen_text(results) and "masked" in screen_text(results)
        await pilot.press("down")
        await settle(pilot)
        preview = " ".join(screen_text(app.screen.query_one(ContextPane).query_one("#context-body")).split())
        assert TOKEN not in preview and "[masked GitHub token]" in preview
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        messages = app.screen.query_one(MessageList)
        shown = " ".join(screen_text(messages).split())
        assert TOKEN not in shown and "[masked GitHub token]" in shown
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert TOKEN in screen_text(messages)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert TOKEN not in screen_text(messages)

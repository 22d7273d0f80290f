"""The command palette describes each command in words: where it works and its key."""

from __future__ import annotations

from textual.command import CommandList, CommandPalette

from tui_fixtures import SIZE, app_for, settle, type_query


def palette_lines(app) -> list[str]:
    options = app.screen.query_one(CommandList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_palette_commands_are_described_in_words(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, "tmux")
        await pilot.press("down", "ctrl+p")
        await settle(pilot)
        await pilot.pause(0.3)  # the palette gathers its commands
        assert isinstance(app.screen, CommandPalette)
        lines = palette_lines(app)
        assert lines, "the palette lists nothing"
        assert not any("action:" in line for line in lines)
        joined = "\n".join(lines)
        for expected in ("Copy id", "Results · key ^y", "Search box · key ^o", "Everywhere · key f3"):
            assert expected in joined, expected

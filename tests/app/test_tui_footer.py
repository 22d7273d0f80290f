"""The footer: the most useful keys that fit, none cut in half; with room, the keys the README
promises (+/- context, [/] pages, F6, ctrl+r, ctrl+q) as well."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from tui.widgets.key_footer import KeyFooter
from tui_fixtures import app_for, settle, type_query


def footer_keys(app) -> list[tuple[str, str]]:
    return [(key.key_display, key.description) for key in app.screen.query_one(KeyFooter).query(FooterKey)]


def assert_nothing_cut(app) -> None:
    footer = app.screen.query_one(KeyFooter)
    right = footer.region.right
    for key in footer.query(FooterKey):
        assert key.region.right <= right and key.region.width >= len(key.key_display), key.description


async def on_results(app, pilot) -> None:
    await type_query(pilot, "tmux")
    await pilot.press("down")
    await settle(pilot)
    await pilot.pause()


async def test_a_wide_terminal_shows_every_key_the_readme_promises(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=(240, 30)) as pilot:
        await on_results(app, pilot)
        keys = dict(footer_keys(app))
        assert keys.get("→/←") == "Context" and keys.get("^pgup/^pgdn") == "Page"
        for key in ("f6", "^r", "^q", "?", "f3", "f4", "f5", "^p"):
            assert key in keys, key
        assert_nothing_cut(app)


async def test_the_mode_on_show_leaves_its_key_out(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=(240, 30)) as pilot:
        await settle(pilot)
        keys = dict(footer_keys(app))
        assert "f2" not in keys and "f3" in keys
        await pilot.press("f3")
        await settle(pilot)
        await pilot.pause()
        keys = dict(footer_keys(app))
        assert "f3" not in keys and "f2" in keys


async def test_a_narrow_terminal_drops_whole_keys_least_useful_first(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await on_results(app, pilot)
        keys = dict(footer_keys(app))
        assert keys.get("^y") == "Copy id"  # the focused list's own keys come first
        assert "^q" not in keys and "→/←" not in keys
        assert_nothing_cut(app)


async def test_keys_appear_when_the_terminal_grows(corpus_index_path):
    app = app_for(corpus_index_path)
    async with app.run_test(size=(100, 24)) as pilot:
        await on_results(app, pilot)
        assert "^q" not in dict(footer_keys(app))
        await pilot.resize_terminal(240, 24)
        await settle(pilot)
        await pilot.pause()
        assert "^q" in dict(footer_keys(app))
        assert_nothing_cut(app)


async def test_the_mode_key_from_a_transcript_in_that_mode_goes_back(corpus_index_path):
    from tui.screens.search import SearchScreen
    from tui.screens.transcript import TranscriptScreen

    app = app_for(corpus_index_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await on_results(app, pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert "f2" in dict(footer_keys(app))
        await pilot.press("f2")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)

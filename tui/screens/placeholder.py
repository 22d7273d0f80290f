"""Where the memory and rules screens plug in.

Another issue adds ``tui/screens/memory.py`` (``MemoryScreen``: fact / episodic / scratchpad
tabs) and ``tui/screens/rules.py`` (``RulesScreen``: the pending-rule review). Until a module
exists, its mode shows a placeholder that says what will be there; the F4/F5 keys and the
``memory``/``rules`` modes in ``ThreadbackApp.MODES`` are already reserved.
"""

from __future__ import annotations

import importlib

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Center, Middle
from textual.screen import Screen
from textual.widgets import Footer, Static

from tui.widgets.status_bar import StatusBar


class PlaceholderScreen(Screen):
    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.heading, self.body = title, body

    def compose(self) -> ComposeResult:
        with Middle():
            with Center():
                yield Static(Text.assemble((self.heading, "bold"), "\n\n", self.body), classes="placeholder")
        yield StatusBar()
        yield Footer(compact=True)


def _screen_or_placeholder(module: str, class_name: str, title: str, body: str, **kwargs) -> Screen:
    try:
        screen_class = getattr(importlib.import_module(module), class_name)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        return PlaceholderScreen(title, body)
    return screen_class(**kwargs)


def memory_screen(**kwargs) -> Screen:
    """The memory tiers; ``kwargs`` go to ``MemoryScreen`` (store, now, ...)."""
    return _screen_or_placeholder(
        "tui.screens.memory", "MemoryScreen", "Memory",
        "Three tabs will live here: facts (fact.yml), episodic memories with their strength, and the\n"
        "scratchpad. Until then use `threadback memory` on the command line.",
        **kwargs,
    )


def rules_screen(**kwargs) -> Screen:
    """The pending-rule review; ``kwargs`` go to ``RulesScreen`` (store, now, ...)."""
    return _screen_or_placeholder(
        "tui.screens.rules", "RulesScreen", "Rules",
        "Pending rules will be reviewed here: each proposed rule with its evidence, approve or\n"
        "reject. Until then use `threadback rules` on the command line.",
        **kwargs,
    )

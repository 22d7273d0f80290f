"""The command palette's Threadback commands: the actions of the screen it was opened from
(its own keys and its focused widget's), plus the app-wide ones, each described in words:
where it works and its key (``Results · key y``), never the action's code name."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

PALETTE_EXTRAS = [
    Binding("", "app.open_demo", "Open the demo sessions"),
    Binding("", "app.refresh_index", "Re-index now"),
]


@dataclass(frozen=True)
class PaletteCommand:
    label: str
    action: str
    node: DOMNode
    help: str


class ThreadbackCommands(Provider):
    def _where(self, node: DOMNode) -> str:
        if node is self.app:
            return "Everywhere"
        return getattr(type(node), "HELP_TITLE", None) or "This screen"

    def _commands(self) -> list[PaletteCommand]:
        found: list[PaletteCommand] = []
        seen: set[str] = set()
        start: DOMNode = self.focused if self.focused is not None else self.screen
        for node in [*start.ancestors_with_self]:
            for binding in getattr(type(node), "BINDINGS", []):
                if isinstance(binding, Binding) and binding.description and binding.action not in seen:
                    if binding.id is None:
                        continue
                    seen.add(binding.action)
                    key = binding.key_display or self.app.get_key_display(binding)
                    found.append(PaletteCommand(binding.description, binding.action, node,
                                                f"{self._where(node)} · key {key}"))
        for binding in PALETTE_EXTRAS:
            found.append(PaletteCommand(binding.description, binding.action, self.app, "Everywhere"))
        return found

    def _run(self, action: str, node: DOMNode) -> None:
        self.app.call_later(self.app.run_action, action, node)

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.label, partial(self._run, command.action, command.node), help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            score = matcher.match(command.label)
            if score > 0:
                yield Hit(score, matcher.highlight(command.label), partial(self._run, command.action, command.node),
                          text=command.label, help=command.help)

"""The command palette's Threadback commands: the actions of the screen it was opened from
(its own keys and its focused widget's), plus the app-wide ones."""

from __future__ import annotations

from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

PALETTE_EXTRAS = [
    Binding("", "app.open_demo", "Open the demo sessions"),
    Binding("", "app.refresh_index", "Re-index now"),
]


class ThreadbackCommands(Provider):
    def _commands(self) -> list[tuple[str, str, DOMNode]]:
        found: list[tuple[str, str, DOMNode]] = []
        seen: set[str] = set()
        start: DOMNode = self.focused if self.focused is not None else self.screen
        for node in [*start.ancestors_with_self]:
            for binding in getattr(type(node), "BINDINGS", []):
                if isinstance(binding, Binding) and binding.description and binding.action not in seen:
                    if binding.id is None:
                        continue
                    seen.add(binding.action)
                    label = binding.description
                    found.append((label, binding.action, node))
        for binding in PALETTE_EXTRAS:
            found.append((binding.description, binding.action, self.app))
        return found

    def _run(self, action: str, node: DOMNode) -> None:
        self.app.call_later(self.app.run_action, action, node)

    async def discover(self) -> Hits:
        for label, action, node in self._commands():
            yield DiscoveryHit(label, partial(self._run, action, node), help=f"action: {action}")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, action, node in self._commands():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), partial(self._run, action, node), text=label)

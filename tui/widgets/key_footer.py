"""The footer: every key that fits, most useful first, none cut in half.

Textual's footer lists the shown bindings in focus order and cuts off whatever does not fit,
mid-word. This one ranks them (the focused widget's keys, then the screen's, then help and the
modes), adds keys that are hidden by default when there is room (``WHEN_ROOM``: context,
pages, hooks, re-index, quit), draws a pair of keys as one (``→/← Context``) and drops the least
useful whole when the terminal is narrow. The command palette's key is dropped before any
other key.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # private in Textual 8; the major version is pinned (pyproject.toml)

# Hidden bindings shown when there is room, most wanted first (by binding id).
WHEN_ROOM = (
    "results.context_more",
    "results.prev_page",
    "app.hooks",
    "app.refresh_index",
    "app.quit",
)
# Drawn as one entry with the first: id -> (id of its partner, the pair's description).
PAIRS = {
    "results.context_more": ("results.context_less", "Context"),
    "results.prev_page": ("results.next_page", "Page"),
    "preview.context_more": ("preview.context_less", "Context"),
}
PARTNERS = {partner for partner, _ in PAIRS.values()}
PALETTE_WIDTH = 12  # "^p palette" and its border


@dataclass
class FooterEntry:
    """One thing in the footer: a key (or a pair, or a group of keys) and what it does."""

    key: str  # pressed when the entry is clicked
    key_display: str
    description: str
    action: str
    enabled: bool
    rank: tuple[int, int]  # lower is more wanted: (tier, position)

    @property
    def width(self) -> int:
        return cell_len(self.key_display) + 1 + cell_len(self.description) + 1  # compact, margin


def _tier(node, binding: Binding, app, screen) -> int | None:
    """0 the focused widget's keys, 1 the screen's and help, 2 the app's, 3+ when room; None:
    not in the footer."""
    if not binding.show:
        return 3 + WHEN_ROOM.index(binding.id) if binding.id in WHEN_ROOM else None
    if node is app:
        return 1 if binding.id == "app.help" else 2
    return 1 if node is screen else 0


class KeyFooter(Footer):
    DEFAULT_CSS = """
    KeyFooter { overflow-x: hidden; }
    """

    def __init__(self) -> None:
        super().__init__(compact=True)
        self._width = 0

    def entries(self) -> list[FooterEntry]:
        """Everything the footer could show, in screen order, each with its rank."""
        found: list[FooterEntry] = []
        seen: set[str] = set()
        by_id: dict[str, tuple[Binding, bool]] = {}
        active = list(self.screen.active_bindings.values())
        for node, binding, enabled, _tooltip in active:
            if binding.id:
                by_id.setdefault(binding.id, (binding, enabled))
        group_at: dict[object, FooterEntry] = {}
        for position, (node, binding, enabled, _tooltip) in enumerate(active):
            if binding.action in seen or binding.id in PARTNERS:
                continue
            tier = _tier(node, binding, self.app, self.screen)
            if tier is None:
                continue
            seen.add(binding.action)
            key_display = binding.key_display or self.app.get_key_display(binding)
            description = binding.description
            if binding.id in PAIRS:
                partner, description = PAIRS[binding.id]
                if partner in by_id:
                    other, _ = by_id[partner]
                    key_display += "/" + (other.key_display or self.app.get_key_display(other))
            if binding.group is not None:
                grouped = group_at.get(binding.group)
                if grouped is not None:
                    grouped.key_display += " " + key_display
                    continue
                description = binding.group.description
            entry = FooterEntry(binding.key.split(",")[0], key_display, description, binding.action, enabled,
                                (tier, position))
            if binding.group is not None:
                group_at[binding.group] = entry
            found.append(entry)
        return found

    def chosen(self, width: int) -> tuple[list[FooterEntry], bool]:
        """The entries that fit in ``width`` columns (most wanted first, shown in screen
        order), and whether the palette key fits too."""
        entries = self.entries()
        if width <= 0:
            return [e for e in entries if e.rank[0] < 3], True
        room = width
        keep: set[int] = set()
        for entry in sorted(entries, key=lambda e: e.rank):
            if entry.rank[0] >= 3 and room - entry.width < PALETTE_WIDTH:
                continue  # keys shown "when there is room" never push out the palette
            if entry.width <= room:
                keep.add(id(entry))
                room -= entry.width
        shown = [e for e in entries if id(e) in keep]
        # The screen's keys in their order, then the extras, most wanted first.
        shown.sort(key=lambda e: (e.rank[0] >= 3, e.rank[0] if e.rank[0] >= 3 else 0, e.rank[1]))
        return shown, room >= PALETTE_WIDTH

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        entries, palette = self.chosen(self._width)
        for entry in entries:
            yield FooterKey(entry.key, entry.key_display, entry.description, entry.action,
                            disabled=not entry.enabled).data_bind(compact=Footer.compact)
        if palette and self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            try:
                _node, binding, enabled, tooltip = self.screen.active_bindings[self.app.COMMAND_PALETTE_BINDING]
            except KeyError:
                return
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            classes="-command-palette", disabled=not enabled,
                            tooltip=binding.tooltip or binding.description)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self._width = event.size.width
            if self._bindings_ready:
                self.call_after_refresh(self.recompose)

"""A heat strip of the last twelve weeks on the sessions screen: one cell a day, darker for
more messages, with the totals and a legend beside it. As many days as fit are shown, newest
at the right."""

from __future__ import annotations

import math

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from indexer.activity import ActivityStrip, DayActivity
from tui.display.counts import plural

LEVELS = "·░▒▓█"  # no activity, then four shades by messages against the busiest day
LABEL = "12 weeks "


def level_of(day: DayActivity, busiest: int) -> int:
    if not day.messages and not day.sessions:
        return 0
    if busiest <= 0:
        return 1
    return max(1, min(4, math.ceil(4 * day.messages / busiest)))


def strip_text(strip: ActivityStrip, width: int, style: Style | str = "") -> Text:
    """Two lines: the cells, then the totals, the busiest day and the legend."""
    room = max(7, width - len(LABEL) - len(" today"))
    days = strip.days[-room:]
    busiest = strip.busiest
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(LABEL, style="dim")
    for day in days:
        level = level_of(day, busiest)
        text.append(LEVELS[level], style=style if level else "dim")
    text.append(" today", style="dim")
    text.append("\n")
    shown = ActivityStrip(tuple(days))
    summary = f"{plural(shown.total_sessions, 'session')} · {plural(shown.total_messages, 'message')}"
    summary += f" on {plural(shown.active_days, 'day')}"
    top = max(days, key=lambda d: (d.messages, d.day), default=None)
    if top is not None and top.messages:
        summary += f" · busiest {top.day}: {plural(top.messages, 'message')}"
    text.append(summary + "   ", style="dim")
    text.append("less ", style="dim")
    for level, cell in enumerate(LEVELS):
        text.append(cell, style=style if level else "dim")
    text.append(" more", style="dim")
    return text


class ActivityStripView(Widget):
    """Shows an ``ActivityStrip`` (given by its screen); empty until one is given."""

    DEFAULT_CSS = """
    ActivityStripView { height: 2; padding: 0 1; }
    ActivityStripView > .activity-strip--cell { color: $success; }
    """
    COMPONENT_CLASSES = {"activity-strip--cell"}

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.strip: ActivityStrip | None = None

    def show(self, strip: ActivityStrip) -> None:
        self.strip = strip
        self.refresh()

    def render(self) -> Text:
        if self.strip is None:
            return Text("")
        cell = self.get_component_rich_style("activity-strip--cell", partial=True)
        return strip_text(self.strip, self.content_size.width, cell)

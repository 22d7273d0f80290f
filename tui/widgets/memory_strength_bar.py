"""A strength in [0, 1] drawn as a short bar with its value: ``████░░ 0.62``."""

from __future__ import annotations

from rich.text import Text

BAR_WIDTH = 6
FULL = "█"
EMPTY = "░"


def strength_bar(
    strength: float, width: int = BAR_WIDTH, *, weak: bool = False, value: bool = True
) -> Text:
    """The bar for one strength; ``weak`` (decayed) entries are dimmed so they stand out."""
    clamped = min(1.0, max(0.0, strength))
    filled = round(clamped * width)
    bar = Text(no_wrap=True)
    bar.append(FULL * filled, style="dim" if weak else "")
    bar.append(EMPTY * (width - filled), style="dim")
    if value:
        bar.append(f" {clamped:.2f}", style="dim" if weak else "")
    return bar

"""The Episodic tab's table: its columns and one row per scored entry (untrusted text made visible)."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text

from indexer.memory import EpisodicEntry, ScoredEntry
from tui.display.humanize_time import dated
from tui.display.log_text import one_line
from tui.widgets.memory_strength_bar import strength_bar


def age_label(entry: EpisodicEntry, now: datetime) -> str:
    """``2026-06-24 · 6d``: the date, and how long ago in a few letters (never cut off)."""
    when = entry.when
    return dated(when.timestamp() if when is not None else None, now.timestamp(), compact=True)


COLUMNS = (
    ("mark", "", 1),
    ("time", "When", 16),
    ("type", "Type", 9),
    ("summary", "Summary", 42),
    ("tags", "Tags", 16),
    ("importance", "Imp", 3),
    ("strength", "Strength", 11),
)


ARCHIVED_LABEL = "archived"  # before the summary: seen without telling italics apart
PINNED_LABEL = "pinned"  # in place of the bar: a pinned entry does not decay
SOURCE_CHANGED_LABEL = "source changed"  # before the summary: a session it cites says otherwise now, or is gone


def entry_row(s: ScoredEntry, now: datetime, threshold: float, *, marked: bool,
              source_changed: bool = False) -> tuple[str | Text, ...]:
    """The cells of one entry, in ``COLUMNS`` order; an archived entry is dimmed and labelled,
    a pinned one says so where its strength bar would be, one whose cited source changed (as
    last checked) says so before its summary."""
    e = s.entry
    style = "italic dim" if e.archived else ""
    summary = Text(one_line(e.summary, 80), style=style)
    if source_changed:
        summary = Text.assemble((f"[{SOURCE_CHANGED_LABEL}]", "bold yellow"), " ", summary)
    if e.archived:
        summary = Text.assemble((f"[{ARCHIVED_LABEL}]", "bold"), " ", summary)
    if e.pinned:
        strength = Text.assemble((PINNED_LABEL, "bold"), (f" {s.strength:.2f}", ""))
    else:
        strength = strength_bar(s.strength, weak=s.breakdown.is_decayed(threshold))
    return (
        "●" if marked else " ",
        Text(age_label(e, now), style=style),
        Text(one_line(e.type, 9), style=style),
        summary,
        Text(one_line(", ".join(e.tags), 40), style=style),
        Text(str(e.importance), style=style, justify="right"),
        strength,
    )

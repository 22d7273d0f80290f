"""One row of the rule list: status mark, id, a ⚠ for hidden characters, and the text."""

from __future__ import annotations

from rich.text import Text

from indexer.rules import APPROVED, ARCHIVED, CHANGED, PENDING, REJECTED, UNVERIFIED, Rule
from indexer.text.safe import suspicious_characters
from tui.display.log_text import one_line

STATUS_MARKS = {PENDING: "○", CHANGED: "!", UNVERIFIED: "?", APPROVED: "✓", REJECTED: "✗", ARCHIVED: "▫"}


SOURCE_CHANGED_LABEL = "[source changed]"


def rule_line(rule: Rule, width: int = 40, *, source_changed: bool = False) -> Text:
    """One list row, ``width`` cells at most: status mark, id, a ⚠ for hidden characters,
    "source changed" when a session the rule cites says otherwise now (as last checked), and as
    much of the text (made visible) as fits."""
    status = rule.effective_status
    row = Text(no_wrap=True, overflow="ellipsis")
    row.append(f"{STATUS_MARKS.get(status, '?')} ", style="bold")
    row.append(rule.id, style="dim")
    row.append(" ")
    if suspicious_characters(rule.text):
        row.append("⚠ ", style="bold")
    if source_changed:
        row.append(SOURCE_CHANGED_LABEL + " ", style="bold yellow")
    row.append(one_line(rule.text, max(8, width - row.cell_len)))
    return row

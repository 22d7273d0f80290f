"""One row of the rule list: status mark, id, a ⚠ for hidden characters, and the text."""

from __future__ import annotations

from rich.text import Text

from indexer.rules import APPROVED, ARCHIVED, CHANGED, PENDING, REJECTED, UNVERIFIED, Rule
from indexer.text.safe import suspicious_characters
from tui.display.log_text import one_line

STATUS_MARKS = {PENDING: "○", CHANGED: "!", UNVERIFIED: "?", APPROVED: "✓", REJECTED: "✗", ARCHIVED: "▫"}


def rule_line(rule: Rule, width: int = 40) -> Text:
    """One list row, ``width`` cells at most: status mark, id, a ⚠ for hidden characters,
    and as much of the text (made visible) as fits."""
    status = rule.effective_status
    row = Text(no_wrap=True, overflow="ellipsis")
    row.append(f"{STATUS_MARKS.get(status, '?')} ", style="bold")
    row.append(rule.id, style="dim")
    row.append(" ")
    if suspicious_characters(rule.text):
        row.append("⚠ ", style="bold")
    row.append(one_line(rule.text, max(8, width - row.cell_len)))
    return row

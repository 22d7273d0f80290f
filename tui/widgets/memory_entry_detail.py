"""The episodic detail pane: the whole entry and its strength, one term per line."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from indexer.memory import EpisodicEntry, Link, StrengthBreakdown
from indexer.memory.strength import AGE_WEIGHT, ASSOCIATION_WEIGHT, RETRIEVAL_WEIGHT
from indexer.text.safe import make_visible
from tui.widgets.memory_strength_bar import strength_bar


def breakdown_table(b: StrengthBreakdown, threshold: float) -> Table:
    """importance/10 + retrievals×0.08 + edges×0.05 − weeks×0.03, then the clamped total."""
    table = Table.grid(padding=(0, 2))
    table.add_column()
    table.add_column()
    table.add_column(justify="right")
    table.add_row("importance", f"{b.importance} / 10", f"+{b.importance_term:.2f}")
    table.add_row("retrievals", f"{b.retrieval_count} × {RETRIEVAL_WEIGHT}",
                  f"+{b.retrieval_term:.2f}")
    table.add_row("links", f"{b.association_edges} × {ASSOCIATION_WEIGHT}",
                  f"+{b.association_term:.2f}")
    table.add_row("age", f"{b.weeks_since_ts:.1f} weeks × {AGE_WEIGHT}", f"−{b.age_term:.2f}")
    table.add_row("sum", "", f"{b.raw:.2f}")
    verdict = f"decayed (< {threshold:.2f}) " if b.is_decayed(threshold) else ""
    table.add_row(
        Text("strength", style="bold"),
        Text.assemble(verdict, "clamped to 0–1 ", strength_bar(b.strength, value=False)),
        Text(f"{b.strength:.2f}", style="bold"),
    )
    return table


class MemoryEntryDetail(Static):
    """Shows one entry (or a hint when none is selected); all text is shown literally."""

    def show_entry(
        self,
        entry: EpisodicEntry,
        breakdown: StrengthBreakdown,
        links: Sequence[Link],
        threshold: float,
    ) -> None:
        head = Text(no_wrap=True, overflow="ellipsis")
        head.append(f"{entry.id}", style="bold")
        head.append(f" · {make_visible(entry.type)} · {entry.ts or 'no time'}")
        head.append(f" · importance {entry.importance}")
        if entry.archived:
            head.append(f" · archived {entry.archived_at or ''}".rstrip(), style="bold")
        if entry.pinned:
            head.append(" · pinned: does not decay", style="bold")
        elif entry.refreshed_at:
            head.append(f" · refreshed {entry.refreshed_at}: decays from then")
        body = Text()
        body.append(make_visible(entry.summary) + "\n", style="bold")
        if entry.detail:
            body.append(make_visible(entry.detail) + "\n")
        if entry.lesson:
            body.append("lesson: ", style="italic")
            body.append(make_visible(entry.lesson) + "\n")
        if entry.tags:
            body.append("tags: ", style="italic")
            body.append(", ".join(make_visible(t) for t in entry.tags) + "\n")
        if links:
            body.append("links: ", style="italic")
            body.append(", ".join(f"{link.other(entry.id)} ({link.weight:g})" for link in links))
            body.append("\n")
        self.update(Group(head, body, breakdown_table(breakdown, threshold)))

    def show_nothing(self, message: str = "No entry selected.") -> None:
        self.update(Text(message, style="dim"))

"""How memories print for a person: one line per entry, fact, scratchpad item or search hit."""

from __future__ import annotations

from indexer.memory import EpisodicEntry, Fact, MemoryHit, ScratchpadItem, StrengthBreakdown


def one_line(text: str, width: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def entry_line(entry: EpisodicEntry, strength: float | None = None) -> str:
    when = (entry.ts or "")[:10] or "          "
    score = f"{strength:4.2f}  " if strength is not None else ""
    tags = f"  [{', '.join(entry.tags)}]" if entry.tags else ""
    mark = ("  (archived)" if entry.archived else "") + ("  (pinned)" if entry.pinned else "")
    return f"{entry.id}  {when}  {entry.type:<9} {score}{one_line(entry.summary)}{tags}{mark}"


def fact_line(fact: Fact) -> str:
    mark = "  (archived)" if fact.archived else ""
    return f"{fact.key}: {one_line(fact.value_text)}{mark}"


def item_line(item: ScratchpadItem) -> str:
    box = ("[x]" if item.checked else "[ ]") if item.kind == "checklist" else " - "
    promoted = f"  (→ {item.promoted_to})" if item.promoted_to else ""
    return f"{item.line:>4}  {box} {one_line(item.text)}{promoted}"


def breakdown_line(b: StrengthBreakdown) -> str:
    return (
        f"{b.strength:.2f} = importance {b.importance_term:.2f}"
        f" + retrievals {b.retrieval_term:.2f} ({b.retrieval_count})"
        f" + links {b.association_term:.2f} ({b.association_edges})"
        f" - age {b.age_term:.2f} ({b.weeks_since_ts:.1f} weeks)"
    )


def hit_line(hit: MemoryHit) -> str:
    if hit.entry is not None:
        return entry_line(hit.entry, hit.strength)
    if hit.fact is not None:
        return "fact  " + fact_line(hit.fact)
    assert hit.item is not None
    return "scratchpad " + item_line(hit.item).lstrip()

"""Counted words: ``1 hit``, ``2 hits``, ``1,234 sessions``."""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``count`` and the noun in the right number (``many`` when it is not just noun + "s")."""
    word = noun if count == 1 else (many or noun + "s")
    return f"{count:,} {word}"


def page_label(total: int, page: int, page_size: int, noun: str, *, more: bool = False) -> str:
    """``7 hits`` on one page; ``51–100 of 1,234 hits · page 2/25`` over several; ``more``
    marks a count that is a floor (``500+ hits``)."""
    word = noun if total == 1 and not more else noun + "s"
    count = f"{total:,}{'+' if more else ''} {word}"
    pages = max(1, (total + page_size - 1) // page_size)
    if pages == 1:
        return count
    first = page * page_size + 1
    last = min(total, first + page_size - 1)
    return f"{first}–{last} of {count} · page {page + 1}/{pages}"

"""Near-duplicate detection, so an agent repeating a proposal does not fill the review queue."""

from __future__ import annotations

import unicodedata

NEAR_DUPLICATE_RATIO = 0.9

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from typing import Iterable, TypeVar

    T = TypeVar("T")


def normalise(text: str) -> str:
    """Compatibility-folded, case-folded text without punctuation, symbols or invisible
    characters, and with runs of whitespace collapsed to one space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    kept = []
    for ch in folded:
        category = unicodedata.category(ch)
        if category[0] in "PSC" and not ch.isspace():
            continue  # punctuation, symbols, controls and format characters
        kept.append(ch)
    return " ".join("".join(kept).split())


def similarity(a_normalised: str, b_normalised: str) -> float:
    if a_normalised == b_normalised:
        return 1.0
    from difflib import SequenceMatcher  # on first use: only a proposal is compared

    matcher = SequenceMatcher(None, a_normalised, b_normalised, autojunk=False)
    # The cheap upper bounds first: most pairs are nowhere near each other.
    if matcher.real_quick_ratio() < NEAR_DUPLICATE_RATIO:
        return matcher.real_quick_ratio()
    if matcher.quick_ratio() < NEAR_DUPLICATE_RATIO:
        return matcher.quick_ratio()
    return matcher.ratio()


def find_near_duplicate(text: str, candidates: Iterable[tuple[T, str]]) -> T | None:
    """A candidate whose text is the same as ``text`` once normalised, else the most similar
    one at least ``NEAR_DUPLICATE_RATIO`` alike, else ``None``; candidates are (item, text)."""
    wanted = normalise(text)
    best: T | None = None
    best_ratio = 0.0
    for item, other in candidates:
        ratio = similarity(wanted, normalise(other))
        if ratio == 1.0:
            return item
        if ratio >= NEAR_DUPLICATE_RATIO and ratio > best_ratio:
            best, best_ratio = item, ratio
    return best

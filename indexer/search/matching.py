"""Finding a query word in stored text the way the index does: ignoring case and the
difference between Traditional and Simplified characters.

Folding every candidate message before looking would cost a table lookup per character; a word
is instead compiled once into a pattern where each character with script variants becomes a
class (回滚 → ``回[滚滾]``), which the regex engine runs over the text as it is. The fold maps
one character to one, so a match has the word's length and its offsets are the text's own.
"""

from __future__ import annotations

import re
from functools import lru_cache

from indexer.text.fold import fold, variants


# The only characters outside ASCII that a case-insensitive ASCII pattern matches, or whose
# ``lower()`` holds ASCII, or that FTS5's trigram tokenizer folds to ASCII (K and ſ): every
# code point is checked against ``re`` (``tests/core/search/test_scoring_scan.py``) and SQLite
# (``tests/core/search/test_probe_text.py``). In a text without them an ASCII string is found by
# ``str.find`` in the lower-cased text, at the offsets its pattern finds, and exactly where
# the trigram index finds it.
ASCII_LOOKALIKES = ("\u0130", "\u0131", "\u017f", "\u212a")


def has_ascii_lookalike(text: str) -> bool:
    """Whether ``text`` holds a character a case-insensitive pattern takes for an ASCII letter
    (the Kelvin sign for k, a dotted or dotless i, a long s): lower-casing misreads it."""
    return any(ch in text for ch in ASCII_LOOKALIKES)


def lowered(text: str) -> str | None:
    """``text`` lower-cased where that keeps every offset and finds an ASCII string as a
    case-insensitive pattern (and the trigram index) finds it; None where it would not.
    (Four ``in`` tests: a character-class regex took 17 times as long, ~64 µs on 13 KB.)"""
    if text.isascii():
        return text.lower()
    if has_ascii_lookalike(text):
        return None
    low = text.lower()
    return low if len(low) == len(text) else None


@lru_cache(maxsize=512)
def term_pattern(text: str) -> re.Pattern[str]:
    """``text`` as a case-insensitive pattern that matches it in either script."""
    parts = []
    for ch in fold(text):
        alternatives = variants(ch) if ch >= "\u3400" else (ch,)
        parts.append(re.escape(ch) if len(alternatives) == 1 else "[" + "".join(alternatives) + "]")
    return re.compile("".join(parts), re.IGNORECASE)


@lru_cache(maxsize=128)
def line_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """The words in order, any whitespace between them."""
    return re.compile(r"\s+".join(term_pattern(w).pattern for w in words), re.IGNORECASE)


def occurs_in(text: str, word: str) -> bool:
    return term_pattern(word).search(text) is not None


def spans_of(text: str, words: list[str]) -> list[tuple[int, int]]:
    """Non-overlapping (start, end) spans of every occurrence of any of ``words`` in ``text``."""
    spans = [m.span() for w in words if w for m in term_pattern(w).finditer(text)]
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if e <= s:
            continue
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged

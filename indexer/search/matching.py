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

from indexer.textfold import fold, variants


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

"""The one-line snippet a hit is shown with: a window of display cells around the best match."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from itertools import compress, repeat

from indexer.search.matching import line_pattern, lowered, term_pattern
from indexer.search.query import Term, is_cjk, match_spans

SNIPPET_COLUMNS = 160  # display width: about 160 Latin or 80 CJK characters
ANCHOR_CHARS = 20_000  # where to look for a whole-word match to centre on


def _width(ch: str) -> int:
    if ch < "\u1100":
        return 1
    return 2 if is_cjk(ch) or "\uff00" <= ch <= "\uffef" else 1


WIDE_FROM = "\u3040"  # no character below this one is wide
# Where the wide ranges start and end (one past), sorted: a character is wide when an odd number
# of these are at or below it. Looked up with bisect in C; a regex class over these ranges
# would take ~4 ms to compile in every fresh process (the CLI, the hooks).
WIDE_EDGES = ("\u3040", "\u3100", "\u31f0", "\u3200", "\u3400", "\u4dc0", "\u4e00", "\ua000",
              "\uac00", "\ud7b0", "\uf900", "\ufb00", "\uff00", "\ufff0", "\U00020000", "\U0002fa20")
_odd = (1).__and__
_non_ascii: re.Pattern[str] | None = None  # compiled on first use (~0.1 ms: a one-range class)


def wide_at(flat: str, start: int = 0, end: int | None = None) -> list[int] | None:
    """Where ``flat[start:end]`` has a character ``_width`` counts as two cells, ascending,
    so any slice inside it is measured by two bisections; None when it has none. Only its
    non-ASCII runs are looked up: a snippet is mostly ASCII."""
    global _non_ascii
    end = len(flat) if end is None else min(end, len(flat))
    if start >= end or max(flat[start:end]) < WIDE_FROM:
        return None
    if _non_ascii is None:
        _non_ascii = re.compile("[^\x00-\x7f]+")
    found: list[int] = []
    for run in _non_ascii.finditer(flat, start, end):
        wide = map(_odd, map(bisect_right, repeat(WIDE_EDGES), run.group()))
        found += compress(range(run.start(), run.end()), wide)
    return found


def _cells(wide: list[int] | None, start: int, end: int) -> int:
    """Display cells of ``flat[start:end]``, with ``wide`` from ``wide_at`` over a slice holding it."""
    return end - start + (bisect_left(wide, end) - bisect_left(wide, start) if wide else 0)


def _fit_forward(flat: str, wide: list[int] | None, start: int, columns: int) -> int:
    """The largest end with ``flat[start:end]`` at most ``columns`` cells wide."""
    end = min(len(flat), start + columns)
    while end > start and (over := _cells(wide, start, end) - columns) > 0:
        end -= max(1, over // 2)
    return end


def _fit_backward(flat: str, wide: list[int] | None, anchor: int, columns: int) -> int:
    """The smallest start with ``flat[start:anchor]`` at most ``columns`` cells wide."""
    start = max(0, anchor - columns)
    while start < anchor and (over := _cells(wide, start, anchor) - columns) > 0:
        start += max(1, over // 2)
    return start


def _anchor(text: str, terms: list[Term], line: str) -> int:
    """Where the snippet centres: the words as typed, in order, if they are there; else the
    first whole-word match; else the first match of any term."""
    head = text[:ANCHOR_CHARS]
    words = line.split()
    if len(words) >= 2:
        m = line_pattern(tuple(words)).search(head)
        if m:
            return m.start()
    found = []
    low = lowered(head) if any(t.text.isascii() for t in terms) else None
    for t in terms:
        if not t.text:
            continue
        if low is not None and t.text.isascii():
            found += _ascii_matches(head, low, t.text.lower())
            continue
        pattern = term_pattern(t.text)
        first = pattern.search(head)
        if first is None:
            continue
        if is_cjk(t.text[0]):  # no spaces between CJK words: every match is a whole one
            found.append((0, first.start()))
            continue
        found.append((1, first.start()))
        if t.text[0].isalnum():
            edge = re.compile(r"(?<![^\W_])(?:" + pattern.pattern + r")(?![^\W_])", re.IGNORECASE)
            whole = edge.search(head)
            if whole:
                found.append((0, whole.start()))
    return min(found)[1] if found else 0


def _ascii_matches(head: str, low: str, needle: str) -> list[tuple[int, int]]:
    """An ASCII word's first match in ``head`` (rank 1) and its first whole-word one (rank 0),
    found by ``str.find`` in the lower-cased text (``matching.lowered``): what the patterns of
    ``_anchor`` find, without running a case-insensitive regex over 20,000 characters for
    each word of each hit (a fifth of a session page's time on long messages)."""
    first = low.find(needle)
    if first < 0:
        return []
    out = [(1, first)]
    if needle[0].isalnum():  # a word character on either side makes it part of a longer word
        at = first
        while at >= 0:
            end = at + len(needle)
            if not (at and head[at - 1].isalnum()) and not (end < len(head) and head[end].isalnum()):
                out.append((0, at))
                break
            at = low.find(needle, at + 1)
    return out


def make_snippet(text: str, terms: list[Term], columns: int = SNIPPET_COLUMNS, *,
                 line: str = "") -> tuple[str, list[tuple[int, int]]]:
    """A one-line window of about ``columns`` display cells around the best match.

    Returns the snippet and the (start, end) spans of matches inside it. Whitespace runs
    collapse to one space so a snippet never breaks a line. Matching folds case and
    Traditional/Simplified Chinese, as the search does.
    """
    first = _anchor(text, terms, line)
    # Work on a window of the raw text: messages can be 100,000 characters long.
    window_start = max(0, first - columns)
    window = text[window_start : first + 3 * columns]
    flat = " ".join(window.split())
    if window[:1].isspace() and window_start:
        flat = " " + flat
    spans = match_spans(flat, terms)
    # The anchor inside the flattened window: the first span at or after it.
    lead_in = len(" ".join(text[window_start:first].split()))
    anchor = next((s for s, _ in spans if s >= lead_in), spans[0][0] if spans else 0)
    # Start a little before the match: a quarter of the window as lead-in.
    lead = columns // 4
    if flat.isascii():  # one cell per character: no need to measure
        start = max(0, anchor - lead)
        end = min(len(flat), start + columns)
    else:
        wide = wide_at(flat, max(0, anchor - lead), anchor + columns)  # all the two fits below measure
        start = _fit_backward(flat, wide, anchor, lead)
        end = _fit_forward(flat, wide, start, columns)
    text_start_cut = window_start > 0 or start > 0
    text_end_cut = end < len(flat) or first + 3 * columns < len(text)
    snippet = flat[start:end]
    prefix = "…" if text_start_cut else ""
    suffix = "…" if text_end_cut else ""
    shift = len(prefix) - start
    inside = [
        (max(s, start) + shift, min(e, end) + shift)
        for s, e in spans
        if e > start and s < end
    ]
    return prefix + snippet + suffix, inside

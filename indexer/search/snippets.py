"""The one-line snippet a hit is shown with: a window of display cells around the best match."""

from __future__ import annotations

import functools
import re

from indexer.search.matching import line_pattern, term_pattern
from indexer.search.query import Term, is_cjk, match_spans

SNIPPET_COLUMNS = 160  # display width: about 160 Latin or 80 CJK characters
ANCHOR_CHARS = 20_000  # where to look for a whole-word match to centre on


def _width(ch: str) -> int:
    if ch < "\u1100":
        return 1
    return 2 if is_cjk(ch) or "\uff00" <= ch <= "\uffef" else 1


WIDE_FROM = "\u3040"  # no character below this one is wide


@functools.cache
def _wide() -> re.Pattern[str]:
    """The characters ``_width`` counts as two cells, as one class: counted in C, not per
    character. Compiled on first use (its big ranges take ~4 ms), by text that holds a
    character from ``WIDE_FROM`` up."""
    return re.compile("[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
                      "\uf900-\ufaff\uff00-\uffef\U00020000-\U0002fa1f]")


def _cells(text: str) -> int:
    if not text or max(text) < WIDE_FROM:
        return len(text)
    return len(text) + len(_wide().findall(text))


def _fit_forward(flat: str, start: int, columns: int) -> int:
    """The largest end with ``flat[start:end]`` at most ``columns`` cells wide."""
    end = min(len(flat), start + columns)
    while end > start and (over := _cells(flat[start:end]) - columns) > 0:
        end -= max(1, over // 2)
    return end


def _fit_backward(flat: str, anchor: int, columns: int) -> int:
    """The smallest start with ``flat[start:anchor]`` at most ``columns`` cells wide."""
    start = max(0, anchor - columns)
    while start < anchor and (over := _cells(flat[start:anchor]) - columns) > 0:
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
    for t in terms:
        if not t.text:
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
        start = _fit_backward(flat, anchor, lead)
        end = _fit_forward(flat, start, columns)
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

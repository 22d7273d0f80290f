"""The one-line snippet a hit is shown with: a window of display cells around the best match."""

from __future__ import annotations

import re

from indexer.search.query import Term, is_cjk, match_spans, searchable_form

SNIPPET_COLUMNS = 160  # display width: about 160 Latin or 80 CJK characters
ANCHOR_CHARS = 20_000  # where to look for a whole-word match to centre on


def _width(ch: str) -> int:
    if ch < "\u1100":
        return 1
    return 2 if is_cjk(ch) or "\uff00" <= ch <= "\uffef" else 1


def _anchor(low: str, terms: list[Term], line: str) -> int:
    """Where the snippet centres: the words as typed, in order, if they are there; else the
    first whole-word match; else the first match of any term."""
    head = low[:ANCHOR_CHARS]
    words = line.split()
    if len(words) >= 2:
        m = re.search(r"\s+".join(re.escape(searchable_form(w)) for w in words), head)
        if m:
            return m.start()
    found = []
    for t in terms:
        needle = searchable_form(t.text)
        if not needle:
            continue
        first = head.find(needle)
        if first < 0:
            continue
        found.append((1, first))
        edge = re.compile(r"(?<![^\W_])" + re.escape(needle) + r"(?![^\W_])") if needle[0].isalnum() else None
        whole = edge.search(head) if edge else None
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
    first = _anchor(searchable_form(text), terms, line)
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
        start, used = anchor, 0
        while start > 0 and used + _width(flat[start - 1]) <= lead:
            start -= 1
            used += _width(flat[start])
        end, used = start, 0
        while end < len(flat) and used + _width(flat[end]) <= columns:
            used += _width(flat[end])
            end += 1
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

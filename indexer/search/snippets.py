"""The one-line snippet a hit is shown with: a window of display cells around the first match."""

from __future__ import annotations

from indexer.search.query import Term, is_cjk, match_spans

SNIPPET_COLUMNS = 160  # display width: about 160 Latin or 80 CJK characters


def _width(ch: str) -> int:
    if ch < "\u1100":
        return 1
    return 2 if is_cjk(ch) or "\uff00" <= ch <= "\uffef" else 1


def make_snippet(text: str, terms: list[Term], columns: int = SNIPPET_COLUMNS) -> tuple[str, list[tuple[int, int]]]:
    """A one-line window of about ``columns`` display cells around the first match.

    Returns the snippet and the (start, end) spans of matches inside it. Whitespace runs
    collapse to one space so a snippet never breaks a line.
    """
    low = text.lower()
    found = [i for i in (low.find(t.text.lower()) for t in terms) if i >= 0]
    first = min(found) if found else 0
    # Work on a window of the raw text: messages can be 100,000 characters long.
    window_start = max(0, first - columns)
    window = text[window_start : first + 3 * columns]
    flat = " ".join(window.split())
    if window[:1].isspace() and window_start:
        flat = " " + flat
    spans = match_spans(flat, terms)
    anchor = spans[0][0] if spans else 0
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

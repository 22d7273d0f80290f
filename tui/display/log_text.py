"""Untrusted log text turned into Rich ``Text``: never parsed as markup, invisible and control
characters shown as markers, match spans highlighted."""

from __future__ import annotations

from typing import Iterable

from rich.style import Style
from rich.text import Text

from indexer.textsafe import make_visible as _make_visible


def visible(text: str) -> str:
    """``text`` with escape sequences, control, zero-width and bidi characters made visible
    (newlines kept)."""
    return _make_visible(text)


def one_line(text: str, limit: int = 300) -> str:
    """The text on a single visible line: newlines become ``⏎``, long text is cut."""
    flat = visible(text[: limit * 2]).replace("\r\n", "\n").replace("\n", " ⏎ ")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def log_text(text: str, style: Style | str = "") -> Text:
    """A ``Text`` holding log content literally (``[bold]`` stays ``[bold]``)."""
    return Text(visible(text), style=style)


def highlighted(text: str, spans: Iterable[tuple[int, int]], match_style: Style | str) -> Text:
    """A one-line snippet with the search matches styled. ``spans`` index the raw ``text``, so
    visible markers are inserted per piece to keep the offsets right."""
    result = Text(no_wrap=True, overflow="ellipsis")
    position = 0
    for start, end in sorted(spans):
        if start < position:
            continue
        result.append(one_line(text[position:start], limit=10_000))
        result.append(one_line(text[start:end], limit=10_000), style=match_style)
        position = end
    result.append(one_line(text[position:], limit=10_000))
    return result


def mark_matches(text: Text, needle: str, style: Style | str) -> int:
    """Style every case-insensitive occurrence of ``needle`` in ``text``; returns the count."""
    if not needle:
        return 0
    plain, lower, count = text.plain.lower(), needle.lower(), 0
    start = plain.find(lower)
    while start != -1:
        text.stylize(style, start, start + len(lower))
        count += 1
        start = plain.find(lower, start + len(lower))
    return count

"""Untrusted log text turned into Rich ``Text``: never parsed as markup, invisible and control
characters shown as markers, match spans highlighted."""

from __future__ import annotations

import re

from typing import Iterable

from rich.style import Style
from rich.text import Text

from indexer.output.masking import masked_snippet

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from indexer.search.fts import SearchResult
from indexer.text.safe import make_safe


def visible(text: str, *, reveal_secrets: bool = False) -> str:
    """``text`` with escape sequences, control, zero-width and bidi characters made visible
    (newlines kept), and API keys, tokens and passwords masked unless ``reveal_secrets``."""
    return make_safe(text, reveal_secrets=reveal_secrets)


def one_line(text: str, limit: int = 300, *, reveal_secrets: bool = False) -> str:
    """The text on a single visible line: newlines become ``⏎``, long text is cut."""
    if not reveal_secrets:  # masked whole, before the cut can split a secret
        text, _ = masked_snippet(text[: limit * 4], (), text[: limit * 4])
    flat = visible(text[: limit * 2], reveal_secrets=True).replace("\r\n", "\n").replace("\n", " ⏎ ")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def log_text(text: str, style: Style | str = "") -> Text:
    """A ``Text`` holding log content literally (``[bold]`` stays ``[bold]``), secrets masked."""
    return Text(visible(text), style=style)


def highlighted(text: str, spans: Iterable[tuple[int, int]], match_style: Style | str) -> Text:
    """A one-line snippet with the search matches styled. ``spans`` index the raw ``text``, so
    visible markers are inserted per piece to keep the offsets right. Secrets are masked in the
    whole text first (a match inside one is dropped with it)."""
    text, spans = masked_snippet(text, tuple(spans), text)
    result = Text(no_wrap=True, overflow="ellipsis")
    position = 0
    for start, end in sorted(spans):
        if start < position:
            continue
        result.append(one_line(text[position:start], limit=10_000, reveal_secrets=True))
        result.append(one_line(text[start:end], limit=10_000, reveal_secrets=True), style=match_style)
        position = end
    result.append(one_line(text[position:], limit=10_000, reveal_secrets=True))
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


def find_terms(needle: str) -> list[str]:
    """What a transcript's find looks for: each word, a "quoted phrase" as one, so ``redis port``
    finds a message with both words anywhere, as the search did."""
    return [quoted or word for quoted, word in re.findall(r'"([^"]+)"|(\S+)', needle) if (quoted or word).strip()]


def find_of(result: "SearchResult | None") -> str:
    """The find a transcript opened from a search starts with: the whole query's words and
    phrases (an OR group, which a find cannot say, only when nothing else is left)."""
    if result is None:
        return ""
    groups = result.query.groups
    terms = [g[0] for g in groups if len(g) == 1] or [g[0] for g in groups[:1]]
    return " ".join(f'"{t.text}"' if t.phrase or " " in t.text else t.text for t in terms)


def mark_terms(text: Text, needle: str, style: Style | str) -> int:
    """``mark_matches`` for each of the find's terms (``find_terms``)."""
    return sum(mark_matches(text, term, style) for term in find_terms(needle))

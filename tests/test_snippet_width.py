"""Snippets are measured in display cells: a CJK character takes two. The count runs on a
table of range edges (no regex to compile at start-up); it must agree with ``_width``, the
per-character definition, for every code point, and windows must fit their width."""

from __future__ import annotations

import random

from indexer.search.query import Term
from indexer.search.snippets import SNIPPET_COLUMNS, _width, make_snippet, wide_before


def test_the_edge_table_agrees_with_width_for_every_code_point():
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    wide = wide_before(text)
    assert wide is not None and len(wide) == len(text) + 1
    expected = [0]
    for ch in text:
        expected.append(expected[-1] + (_width(ch) == 2))
    assert wide == expected


def test_text_with_nothing_wide_needs_no_table():
    assert wide_before("") is None
    assert wide_before("plain ascii — and “quotes” ✓") is None


def cells(text: str) -> int:
    return sum(_width(ch) for ch in text)


def test_mixed_snippets_fit_their_width_around_the_match():
    rng = random.Random(7)
    pool = list("abcdefgh ") + list("日本語の検索テスト한국어") + ["\U00020001", "\uff01", "\U0001f600", "—"]
    terms = [Term("timeout")]
    for _ in range(200):
        body = "".join(rng.choice(pool) for _ in range(rng.randrange(50, 900)))
        cut = rng.randrange(len(body))
        text = body[:cut] + " timeout " + body[cut:]
        snippet, spans = make_snippet(text, terms)
        inner = snippet.strip("…")
        assert cells(inner) <= SNIPPET_COLUMNS
        assert any(snippet[s:e].lower() == "timeout" for s, e in spans)

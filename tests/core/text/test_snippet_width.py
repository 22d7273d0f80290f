"""Snippets are measured in display cells: a CJK character takes two. The count runs on a
table of range edges (no big regex class to compile at start-up), over the non-ASCII runs
only; it must agree with ``_width``, the per-character definition, for every code point and
for any slice of mixed text, and windows must fit their width."""

from __future__ import annotations

import random

from indexer.search import snippets
from indexer.search.query import Term
from indexer.search.snippets import SNIPPET_COLUMNS, _cells, _width, make_snippet, wide_at


def test_the_edge_table_agrees_with_width_for_every_code_point():
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    assert wide_at(text) == [i for i, ch in enumerate(text) if _width(ch) == 2]


def test_text_with_nothing_wide_needs_no_table():
    assert wide_at("") is None
    assert wide_at("plain ascii — and “quotes” ✓") is None


def test_any_slice_of_mixed_text_is_measured_as_width_counts_it():
    """ASCII between the non-ASCII runs, runs at either end, wide and narrow in one run."""
    rng = random.Random(11)
    pool = list("ab 1") + list("日本語テスト한") + ["\U00020001", "\uff01", "\U0001f600", "—", "é", "\u3040", "\u303f"]
    for _ in range(300):
        flat = "".join(rng.choice(pool) for _ in range(rng.randrange(1, 80)))
        wide = wide_at(flat)
        for _ in range(20):
            start = rng.randrange(len(flat) + 1)
            end = rng.randrange(start, len(flat) + 1)
            assert _cells(wide, start, end) == cells(flat[start:end]), (flat, start, end)


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


def test_measuring_only_the_window_gives_the_snippet_measuring_everything_gives(monkeypatch):
    """``make_snippet`` looks up wide characters only where its window can reach; looked up
    in the whole text, every snippet and span is the same."""
    rng = random.Random(5)
    narrow, wide = list("abc timeout —\n"), list("日本語の検索テスト한국어") + ["\U00020001", "\uff01"]
    terms = [Term("timeout"), Term("検索")]
    texts = []

    def part(size: int) -> str:
        share = rng.choice([0.0, 0.01, 0.05, 0.3, 0.9, 1.0])  # wide characters matter at the window's edges
        return "".join(rng.choice(wide if rng.random() < share else narrow) for _ in range(size))

    for _ in range(1000):
        texts.append(part(rng.randrange(0, 300)) + rng.choice([" timeout ", "検索", "timeout検索"])
                     + part(rng.randrange(0, 100)) + part(rng.randrange(0, 300)))
    windowed = [make_snippet(t, terms) for t in texts]
    whole = snippets.wide_at
    monkeypatch.setattr(snippets, "wide_at", lambda flat, start=0, end=None: whole(flat))
    assert [make_snippet(t, terms) for t in texts] == windowed

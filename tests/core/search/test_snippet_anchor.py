"""A snippet centres on a word's first whole-word match, else its first match. An ASCII word
is found by ``str.find`` in the lower-cased text; where lower-casing would misread the text
(a lookalike such as the Kelvin sign is in it) the case-insensitive patterns find it. Both
ways must put the snippet in the same place."""

from __future__ import annotations

import random

from indexer.search.query import parse_query
from indexer.search.snippets import _anchor

KELVIN = "\u212a"  # in a text, it sends every ASCII word to the patterns


def anchor_both_ways(text: str, query: str) -> tuple[int, int]:
    terms = parse_query(query, now=0).positive_terms
    return _anchor(text, terms, ""), _anchor(text + " " + KELVIN, terms, "")


def test_a_whole_word_wins_over_an_earlier_part_of_a_longer_one():
    assert anchor_both_ways("retesting, then the TEST ran", "test") == (20, 20)
    assert anchor_both_ways("a_test_b and test", "test") == (2, 2)  # an underscore is an edge
    assert anchor_both_ways("test1 then 1test then été test", "test") == (26, 26)
    assert anchor_both_ways("only contest here", "test") == (8, 8)  # no whole word: the first match
    assert anchor_both_ways("nothing of it", "test") == (0, 0)


def test_the_two_ways_agree_on_generated_text():
    rng = random.Random(5)
    pool = ["test", "Test", "TESTING", "_test", "test_", "1test", "protest", " ", " ", "\n", "é", "日本",
            "Straße", "data", "DATA-", "x"]
    for _ in range(2000):
        text = "".join(rng.choice(pool) for _ in range(rng.randrange(1, 25)))
        query = rng.choice(["test", "TEST", "es", "data test", "日本 test", "sse", "-data"])
        fast, patterns = anchor_both_ways(text, query)
        assert fast == patterns, (text, query)

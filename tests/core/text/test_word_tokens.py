"""The word index's tokens against FTS5's trigram matching itself: a message the trigram index
matches always has a token holding the query's run (the word index never loses a match), and
a token holding a plain run always means a trigram match (it finds nothing extra)."""

from __future__ import annotations

import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.text.word_tokens import CHUNK, MAX_RUN, query_run, query_runs, word_string, word_terms

# ASCII word characters, the two non-ASCII characters SQLite folds into them, characters that
# fold to other letters (İ, É), separators, a CJK character.
ALPHABET = "abKk_1sS\u212a\u017f -.\u00e9\u00c9\u0130\u8cc7"
texts = st.text(alphabet=ALPHABET, max_size=160)
needles = st.text(alphabet=ALPHABET, min_size=3, max_size=40)


def trigram_matches(texts: list[str], needle: str) -> set[int]:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
    conn.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", enumerate(texts, 1))
    expression = '"' + needle.replace('"', '""') + '"'
    return {r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expression,))}


def holds(text: str, run: str) -> bool:
    return any(run in term for term in word_terms(text))


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, min_size=1, max_size=8), needles)
def test_a_trigram_match_always_has_a_token_holding_the_run(batch, needle):
    runs = query_runs(needle)
    assert (runs[0] if runs else None) == query_run(needle)
    for rowid in trigram_matches(batch, needle):
        for run in runs:  # each run, not only the longest: the word path asks for them all
            assert holds(batch[rowid - 1], run), (batch[rowid - 1], needle, run)


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, min_size=1, max_size=8), st.text(alphabet="abk_1s", min_size=4, max_size=MAX_RUN))
def test_a_token_holding_a_plain_run_is_a_trigram_match(batch, run):
    assert query_run(run) == run
    held = {i for i, text in enumerate(batch, 1) if holds(text, run)}
    assert held == trigram_matches(batch, run)


def test_the_two_characters_sqlite_folds_into_ascii_join_a_token():
    assert word_terms("server\u212aELVIN \u017ferverror") == ["serverkelvin", "serverror"]
    assert word_terms("İstanbul error") == ["stanbul", "error"]  # İ folds to a non-ASCII letter
    assert trigram_matches(["\u017ferverror"], "serverror") == {1}


def test_a_long_token_is_kept_in_overlapping_pieces():
    token = "".join(chr(ord("a") + i % 26) + str(i % 10) for i in range(100))  # 200 characters
    terms = word_terms(token)
    assert all(len(t) <= CHUNK for t in terms) and len(terms) > 1
    for start in range(len(token) - MAX_RUN + 1):
        assert holds(token, token[start : start + MAX_RUN])
    assert word_string("Foo_Bar1 x abc Foo_bar1") == "foo_bar1"


def test_every_run_of_a_phrase_is_read_longest_first():
    assert query_runs("Retry the connection, retry") == ["connection", "retry"]
    assert query_runs("a \u212aelvin-ſign of " + "x" * 80) == ["x" * MAX_RUN, "kelvin", "sign"]
    assert query_runs("ab cd efg") == []

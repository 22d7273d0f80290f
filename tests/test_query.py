"""The query language: parsing never fails, and each construct means what the README says."""

from __future__ import annotations

import pytest

from indexer import QueryError, parse_query
from indexer.search.query import text_matches

from conftest import FIXED_NOW


def test_parse_words_phrases_or_exclusions_and_filters():
    q = parse_query('websocket "flaky test" OR timeout -docker agent:claude project:api role:user since:7d until:2026-06-30', FIXED_NOW)
    assert [[t.text for t in g] for g in q.groups] == [["websocket"], ["flaky test", "timeout"]]
    assert q.groups[1][0].phrase
    assert [t.text for t in q.excluded] == ["docker"]
    assert (q.agent, q.project, q.role) == ("claude-code", "api", "user")
    assert q.since == FIXED_NOW - 7 * 86400
    assert q.until == 1782864000.0  # 2026-06-30 end of day = 2026-07-01T00:00Z
    assert not q.warnings


@pytest.mark.parametrize("text", ['"unclosed', "OR", "-", "AND(", "NEAR(a b)", "a*", "col:umn", '""', "^start", "a OR OR b", "since:"])
def test_odd_input_never_raises(text, corpus_index):
    q = parse_query(text, FIXED_NOW)
    try:
        corpus_index.search(q)
    except QueryError:
        pass  # a message for the user is fine; an sqlite error is not


def test_bad_date_is_a_warning_not_an_error():
    q = parse_query("pelicans since:lastfortnight", FIXED_NOW)
    assert q.since is None and "not a date" in q.warnings[0]


def test_one_character_query_gets_a_clear_message(corpus_index):
    with pytest.raises(QueryError, match="too short"):
        corpus_index.search("x")


def test_filters_alone_ask_for_a_word(corpus_index):
    with pytest.raises(QueryError, match="at least one word"):
        corpus_index.search("agent:pi")


def test_and_or_exclude_semantics(corpus_index):
    both = corpus_index.search("tmux custom", limit=200).hits
    assert both and all("tmux" in h.message.text.lower() and "custom" in h.message.text.lower() for h in both)
    either = corpus_index.search("tmux OR pelican", limit=200)
    assert either.total >= len(both)
    without = corpus_index.search("tmux -custom", limit=200).hits
    assert without and all("custom" not in h.message.text.lower() for h in without)


def test_phrase_with_fts_syntax_characters(corpus_index):
    hits = corpus_index.search('"code organization"').hits
    assert hits and all("code organization" in h.message.text.lower() for h in hits)
    literal = corpus_index.search('"AND(" OR "NOT*"', limit=100).hits
    assert all("and(" in h.message.text.lower() or "not*" in h.message.text.lower() for h in literal)


def test_filters_narrow(corpus_index):
    assert {h.session.agent for h in corpus_index.search("agent:pi theme", limit=100).hits} == {"pi"}
    assert {h.session.project_name for h in corpus_index.search("project:claude_p organization", limit=100).hits} == {"claude_p"}
    assert {h.message.role for h in corpus_index.search("role:user theme", limit=100).hits} == {"user"}
    assert not corpus_index.search("theme until:2020-01-01").hits
    assert corpus_index.search("session:29ccd257 organization").hits[0].session.session_id.startswith("29ccd257")


def test_two_char_cjk_alone_and_mixed_with_longer_terms(corpus_index):
    alone = corpus_index.search("更新", limit=100).hits
    assert alone and all("更新" in h.message.text for h in alone)
    mixed = corpus_index.search("更新 Tailwind", limit=100).hits
    assert mixed and all("更新" in h.message.text and "tailwind" in h.message.text.lower() for h in mixed)
    assert len(mixed) <= len(alone)
    excluded = corpus_index.search("Tailwind -更新", limit=100).hits
    assert excluded and all("更新" not in h.message.text for h in excluded)


def test_two_char_latin_term_with_a_longer_one(corpus_index):
    hits = corpus_index.search("tmux ok", limit=100).hits
    assert all("ok" in h.message.text.lower() for h in hits)


def test_ranking_prefers_relevance_then_recency(corpus_index):
    hits = corpus_index.search("theme", limit=50).hits
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    for a, b in zip(hits, hits[1:]):
        if a.score == b.score:
            assert (a.message.ts or 0) >= (b.message.ts or 0)


def test_one_hit_per_session_and_exclude_session(corpus_index):
    per = corpus_index.search("theme", one_per_session=True, limit=100).hits
    assert len({h.session.id for h in per}) == len(per)
    top = per[0].session.session_id
    excluded = corpus_index.search("theme", exclude_sessions=(top,), limit=100).hits
    assert excluded and top not in {h.session.session_id for h in excluded}


def test_context_returns_neighbours_in_the_same_session(corpus_index):
    hit = corpus_index.search('"code organization"', context=2).hits[0]
    assert all(m.session_rowid == hit.message.session_rowid for m in hit.context_before + hit.context_after)
    assert [m.ordinal for m in hit.context_after] == list(range(hit.message.ordinal + 1, hit.message.ordinal + 1 + len(hit.context_after)))
    assert len(hit.context_after) >= 1


def test_snippet_marks_the_match(corpus_index):
    hit = corpus_index.search("tmux").hits[0]
    start, end = hit.spans[0]
    assert hit.snippet[start:end].lower() == "tmux"
    assert "\n" not in hit.snippet


def test_text_matches_is_the_same_language():
    q = parse_query('設定 "hook guard" OR 守門 -rm', FIXED_NOW)
    assert text_matches(q, "建立 Hook 守門系統 設定")
    assert not text_matches(q, "建立 Hook 守門系統 設定 rm")
    assert not text_matches(q, "hook guard only")

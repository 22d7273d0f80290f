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
    both = corpus_index.search("tmux custom", limit=200, closest=False).hits
    assert both and all("tmux" in h.message.text.lower() and "custom" in h.message.text.lower() for h in both)
    either = corpus_index.search("tmux OR pelican", limit=200)
    assert either.total >= len(both)
    without = corpus_index.search("tmux -custom", limit=200, closest=False).hits
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
    mixed = corpus_index.search("更新 Tailwind", limit=100, closest=False).hits
    assert mixed and all("更新" in h.message.text and "tailwind" in h.message.text.lower() for h in mixed)
    assert len(mixed) <= len(alone)
    excluded = corpus_index.search("Tailwind -更新", limit=100, closest=False).hits
    assert excluded and all("更新" not in h.message.text for h in excluded)


def test_two_char_latin_term_with_a_longer_one(corpus_index):
    hits = corpus_index.search("tmux ok", limit=100, closest=False).hits
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


# -- issue 13: what people paste ------------------------------------------------------------------
@pytest.mark.parametrize(("text", "words"), [
    ("nginx -s reload", ["nginx", "-s", "reload"]),
    ("git merge --no-ff", ["git", "merge", "--no-ff"]),
    ("act --container-architecture", ["act", "--container-architecture"]),
    ("iconv -f BIG5", ["iconv", "-f", "BIG5"]),
    ("pytest -q tests/test_loader.py", ["pytest", "-q", "tests/test_loader.py"]),
    ("rsync -aP --delete", ["rsync", "-aP", "--delete"]),  # one flag makes the line a command
    ("TZ=UTC pytest -k parse_dates", ["TZ=UTC", "pytest", "-k", "parse_dates"]),
])
def test_a_command_line_is_searched_literally(text, words):
    q = parse_query(text, FIXED_NOW)
    assert [t.text for g in q.groups for t in g] == words
    assert not q.excluded
    assert q.literal_line == text


def test_dash_word_still_excludes_and_not_always_does():
    q = parse_query("websocket -kubernetes", FIXED_NOW)
    assert [t.text for t in q.excluded] == ["kubernetes"]
    q = parse_query("nginx -s reload NOT runbook", FIXED_NOW)  # a command line, and NOT still excludes
    assert [t.text for t in q.excluded] == ["runbook"] and ["-s"] in [[t.text for t in g] for g in q.groups]
    q = parse_query('NOT "flaky test" timezone', FIXED_NOW)
    assert q.excluded[0].text == "flaky test" and q.excluded[0].phrase


def test_one_letters_are_dropped_with_a_note_and_cjk_characters_kept():
    q = parse_query("write a poem", FIXED_NOW)
    assert [t.text for g in q.groups for t in g] == ["write", "poem"]
    assert any("“a”" in n for n in q.notes)
    q = parse_query("orders 表 欄位", FIXED_NOW)
    assert [t.text for g in q.groups for t in g] == ["orders", "表", "欄位"] and not q.notes


def test_a_dash_word_after_a_word_is_a_flag_when_that_command_occurs(corpus_index):
    # "tmux -custom" never occurs: an exclusion. A pair that occurs is the command's option.
    assert parse_query("tmux -custom", FIXED_NOW).ambiguous
    without = corpus_index.search("tmux -custom", limit=100).hits
    assert without and all("custom" not in h.message.text.lower() for h in without)
    assert parse_query("ls -la", FIXED_NOW).ambiguous  # -la could be either
    literal = corpus_index.search("ls -la", limit=100)
    assert literal.hits and all("ls -la" in h.message.text for h in literal.hits[:3])
    assert any("as a flag" in n for n in literal.notes)


def test_nothing_searchable_gets_a_message_never_a_traceback(corpus_index):
    for text in ("x", "- . ,", "NOT tmux", "agent:pi -tmux"):
        with pytest.raises(QueryError):
            corpus_index.search(text)


def test_nul_and_control_characters_and_huge_queries(corpus_index):
    result = corpus_index.search("tm\x00ux\x01 theme\x00", limit=5)
    assert any("control characters" in n for n in result.notes)
    huge = " ".join(f"word{i}" for i in range(1500)) + " theme"
    result = corpus_index.search(huge, limit=5)
    assert any("first 4,000 characters" in n for n in result.notes)
    assert any(n.startswith("only the first 32 of ") for n in result.notes)
    assert corpus_index.search("theme " * 3000, limit=5).hits  # repeated words count once
    result = corpus_index.search(huge, by_session=True, limit=5, closest=False)
    assert result.total == 0

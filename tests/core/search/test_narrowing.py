"""Filters that name few sessions narrow the search to those sessions' id ranges before the
FTS index is read (``indexer.search.narrowing``): the answers are exactly those of the plain
newest-first walk, whatever the query holds (phrases, OR, exclusions, 2-character CJK, short
words, a word found nowhere in range)."""

from __future__ import annotations

import pytest

from indexer import Index
from indexer.search import narrowing
from indexer.search.candidates import Filters
from indexer.search.plan import make_plan
from indexer.search.query import parse_query

from agent_logs import build_index, claude_session
from conftest import FIXED_NOW

TEXTS = [
    "the websocket timeout again in the 驗收 run",
    "raised the timeout; the server error went away",
    "deploy pipeline 驗收 passed, retry the connection later",
    "profiler flamegraph shows the cache invalidation",
    "db migration ok, ab test on 資料庫 index",
]

QUERIES = [
    "timeout project:alpha",
    "timeout project:alpha since:2026-03-06",
    "timeout agent:claude project:beta until:2026-03-04",
    '"retry the connection" project:gamma',
    "flamegraph OR websocket project:alpha since:2026-03-03",
    "timeout -websocket project:beta",
    "驗收 project:alpha since:2026-03-05",
    "deploy 驗收 project:gamma",
    "db project:beta",
    "資料庫 since:2026-03-08",
    "serverror project:alpha",
    "timeout project:nosuchproject",
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("narrow")
    n = 0
    for day in range(1, 11):
        for project in ("alpha", "beta", "gamma"):
            n += 1
            texts = [f"{TEXTS[(n + i) % len(TEXTS)]} ({project} {day} {i})" for i in range(8)]
            claude_session(root / "logs", f"s{n:03d}", project, texts, day=day)
    idx = Index(build_index(root / "logs", root / "index.sqlite3"), readonly=True)
    yield idx
    idx.close()


def answers(index: Index, query: str, by_session: bool) -> tuple:
    result = index.search(query, limit=5, by_session=by_session, evidence=1)
    hits = [(h.message.id, h.session.session_id) for h in result.hits]
    return hits, result.total, result.capped


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("by_session", [False, True])
def test_narrowed_answers_are_the_plain_ones(index, monkeypatch, query, by_session):
    narrowed = answers(index, query, by_session)
    monkeypatch.setattr(narrowing, "MAX_SESSIONS", -1)  # every filter "names too many": the plain walk
    assert narrowed == answers(index, query, by_session)


def test_a_narrow_filter_is_resolved_to_id_ranges(index):
    def ranges(query: str):
        return Filters(make_plan(parse_query(query, FIXED_NOW))).id_ranges(index.conn)

    alpha_late = ranges("timeout project:alpha since:2026-03-09")
    assert alpha_late is not None and len(alpha_late) == 2  # days 9 and 10: two sessions, apart
    assert alpha_late[0][0] > alpha_late[1][1]  # newest first, disjoint
    assert ranges("timeout") is None  # no filter: nothing to narrow
    assert ranges("timeout project:nosuchproject") == []


def test_ranges_merge_when_they_touch():
    assert narrowing.merged_newest_first([(1, 5), (6, 9), (20, 30), (25, 40)]) == [(20, 40), (1, 9)]


def test_session_bounds_cover_every_message_after_appends_and_rewrites(tmp_path):
    """The bounds come from two seeks on (session, ordinal): they must still equal the lowest
    and highest id after a log grows, is rewritten from its start, and when one session's
    messages live in two files indexed in different runs (a session row per file, today)."""
    logs, db = tmp_path / "logs", tmp_path / "index.sqlite3"
    first = claude_session(logs, "s1", "alpha", ["one", "two", "three"], day=1)
    claude_session(logs, "s2", "alpha", ["other", "session"], day=1)
    build_index(logs, db)
    with first.open("a", encoding="utf-8") as f:  # the log grows
        f.write(first.read_text(encoding="utf-8").splitlines(keepends=True)[0].replace('"s1-0"', '"s1-9"'))
    build_index(logs, db)
    claude_session(logs, "s2", "alpha", ["rewritten", "from", "its", "start"], day=2)  # shorter: read again
    second_file = claude_session(logs / "more", "s1", "alpha", ["a", "second", "file"], day=3)
    second_file.rename(second_file.with_name("s1-continued.jsonl"))
    build_index(logs, db)
    claude_session(logs, "s1", "alpha", ["first", "file", "rewritten", "later"], day=4)
    build_index(logs, db)

    index = Index(db, readonly=True)
    try:
        scanned = dict(((s, (lo, hi)) for s, lo, hi in index.conn.execute(
            "SELECT session_rowid, min(id), max(id) FROM messages GROUP BY session_rowid")))
        assert len(scanned) >= 2
        assert narrowing.session_bounds(index.conn, list(scanned)) == scanned
        backwards = sorted(scanned, reverse=True)  # asked in one statement, given in the order asked
        assert list(narrowing.session_bounds(index.conn, backwards).items()) == [(s, scanned[s]) for s in backwards]
        # the filters' sessions: the same ranges
        every = narrowing.session_id_ranges(index.conn, ["s.id > ?"], [0], None, None)
        assert every == narrowing.merged_newest_first(list(scanned.values()))
        first = min(scanned)
        assert narrowing.session_id_ranges(index.conn, ["s.id = ?"], [first], None, None) == [scanned[first]]
    finally:
        index.close()


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("by_session", [False, True])
def test_ranges_read_oldest_first_keep_the_newest_matches(index, monkeypatch, query, by_session):
    """A narrow range is read oldest first, in full (``FORWARD_SPAN``), a wide one newest first
    up to the limit: with so few candidates that one session's range holds more matches than
    are kept, both ways and the plain walk give the same answers."""
    from indexer.search import candidates, fts, session_search

    monkeypatch.setattr(fts, "CANDIDATES", 3)
    monkeypatch.setattr(session_search, "GROUP_CANDIDATES", 3)
    forward = answers(index, query, by_session)
    monkeypatch.setattr(candidates, "FORWARD_SPAN", 0)
    backward = answers(index, query, by_session)
    monkeypatch.setattr(narrowing, "MAX_SESSIONS", -1)
    assert forward == backward == answers(index, query, by_session)

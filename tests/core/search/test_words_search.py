"""The word index narrows a search without changing its answers: every query shape gives the
same hits with the word path as without it, on a fresh index, an upgraded one (before and
after its backfill) and after a log is rewritten."""

from __future__ import annotations

import sqlite3

import pytest

from indexer import Index
from indexer.upkeep import words_backfill
from indexer.search import candidates, fts, sparse_phrase
from indexer.search import rare_words as words
from indexer.search.plan import make_plan, trigram_groups
from indexer.search.query import parse_query
from indexer.search.session_search import GROUP_CANDIDATES
from indexer.store.side_file import side_path

from agent_logs import build_index, claude_session
from conftest import FIXED_NOW
from test_narrowing import TEXTS as COMMON

RARE = [
    "the SERVERROR came back after the deploy",
    "server_error42 in worker 7; the server error log shows it",
    "ſerverror with a long s and a \u212aelvin sign",
    "retry the connection to the serverrors pool, 驗收 later via \u346eab",  # U+346E folds to U+2B748
    "token " + "ab12" * 40 + "serverror" + "cd34" * 10,
    "資料庫 migration: serverror_v2 handled",
]

QUERIES = [
    "serverror",
    "Serverror",
    "serverror timeout",
    "serverror project:alpha",
    "serverror -deploy",
    "serverror OR flamegraph",
    "serverror OR nosuchword",
    '"the serverror came"',
    '"retry the connection"',
    "serverror 驗收",
    "驗收 serverrors",
    "server_error42",
    "error42",
    "ab12ab12ab12serverror",
    "Kelvin",
    "nosuchwordatall",
    "timeout",
    "timeout project:beta since:2026-03-05",
    "serverror since:2026-03-06",
    "資料庫 serverror_v2",
    "资料库 serverror_v2",  # Simplified: the probe's text must be folded as the index's is
    "serverror -资料库",  # an exclusion read on the probe, folded too
    "db serverror",
]


def write_logs(root, rare=RARE):
    n = 0
    for day in range(1, 9):
        for project in ("alpha", "beta"):
            n += 1
            texts = [f"{COMMON[(n + i) % len(COMMON)]} ({project} {day} {i})" for i in range(6)]
            texts[n % 6] = f"{rare[n % len(rare)]} ({project} {day})"
            claude_session(root, f"s{n:03d}", project, texts, day=day)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("words")
    write_logs(root / "logs")
    idx = Index(build_index(root / "logs", root / "index.sqlite3"), readonly=True)
    yield idx
    idx.close()


def answers(index: Index, query: str, by_session: bool) -> tuple:
    result = index.search(query, limit=50, by_session=by_session, evidence=2)
    hits = [(h.message.id, h.session.session_id, round(h.score, 3)) for h in result.hits]
    return hits, result.total, result.capped


def compare(index: Index, monkeypatch, queries=QUERIES, module=sparse_phrase, seam="candidate_ids") -> set[str]:
    """Assert the plain walk and the narrowed paths agree on every query; return the queries
    the path through ``module.seam`` (by default the word index) answered."""
    taken: set[str] = set()
    real, real_seam = candidates.narrowed, getattr(module, seam)
    for query in queries:
        for by_session in (False, True):
            monkeypatch.setattr(candidates, "narrowed", lambda *a: None)
            plain = answers(index, query, by_session)

            def spy(*args, query=query):
                found = real_seam(*args)
                if found is not None:
                    taken.add(query)
                return found

            monkeypatch.setattr(candidates, "narrowed", real)
            monkeypatch.setattr(module, seam, spy)
            assert answers(index, query, by_session) == plain, (query, by_session)
            monkeypatch.setattr(module, seam, real_seam)
    return taken


def test_the_word_path_gives_the_plain_answers(index, monkeypatch):
    taken = compare(index, monkeypatch)
    assert {"serverror", "Serverror", "serverror timeout", "serverror -deploy", "server_error42",
            "ab12ab12ab12serverror", "nosuchwordatall", '"the serverror came"', "serverror 驗收"} <= taken
    assert answers(index, "serverror", False)[1] >= 4  # the case, LONG S and long-token ones included
    assert answers(index, "nosuchwordatall", False)[1] == 0


def groups(query: str):
    """The planned groups the word path is given for ``query``'s messages."""
    return trigram_groups(make_plan(parse_query(query, FIXED_NOW)))


def test_a_word_in_too_many_terms_or_messages_is_left_to_the_walk(index, monkeypatch):
    conn = index.conn
    assert words.candidate_ids(conn, groups("serverror"))
    monkeypatch.setattr(words, "MAX_MESSAGES", 2)
    assert words.candidate_ids(conn, groups("serverror")) is None
    assert words.candidate_ids(conn, groups("serverror ab12ab12ab12")) is None
    monkeypatch.setattr(words, "MAX_MESSAGES", 4000)
    monkeypatch.setattr(words, "MAX_TERMS", 1)
    assert words.candidate_ids(conn, groups("serverror")) is None
    assert words.candidate_ids(conn, groups("nosuchwordatall")) == []
    assert words.candidate_ids(conn, groups("err")) is None  # no run of 4: the trigram walk is cheap
    assert words.candidate_ids(conn, ()) is None


def test_the_word_path_reads_the_terms_the_trigram_expression_asks_for():
    planned = groups('Serverror "retry the connection" OR 資料庫 OR flamegraph 驗收 ab -deploy')
    texts = [words.trigram_texts(g) for g in planned]
    assert texts == [["Serverror"], ["retry the connection", "资料库", "flamegraph"]]
    assert [g.trigram for g in planned] == ["(" + " OR ".join(f'"{t}"' for t in ts) + ")" for ts in texts]


def _as_before_the_word_index(db):
    """The side file as a build without the word index left it, and the main file at schema 8."""
    side = sqlite3.connect(side_path(db), isolation_level=None)
    for table in ("words", "vocab_tri", "vocab"):
        side.execute(f"DROP TABLE {table}")
    side.execute("DELETE FROM meta WHERE key = 'words_below'")
    side.close()
    main = sqlite3.connect(db, isolation_level=None)
    main.execute("PRAGMA user_version = 8")
    main.close()


def test_an_upgraded_index_answers_alike_before_and_after_its_backfill(tmp_path, monkeypatch):
    write_logs(tmp_path / "logs")
    db = build_index(tmp_path / "logs", tmp_path / "index.sqlite3")
    before = Index(db, readonly=True)
    fresh = {q: answers(before, q, False) for q in QUERIES}
    before.close()
    _as_before_the_word_index(db)
    upgraded = Index(db)  # migrates; the word index is there but empty, so it is not used
    assert compare(upgraded, monkeypatch) == set()
    assert {q: answers(upgraded, q, False) for q in QUERIES} == fresh
    monkeypatch.setattr(words_backfill, "BATCH", 7)
    stops = iter([False, False, True])
    upgraded.update(_roots(tmp_path), now=FIXED_NOW, should_stop=lambda: next(stops, True))
    assert words.words_below(upgraded.conn, "side") not in (None, 0)  # stopped part way
    assert compare(upgraded, monkeypatch) == set()
    upgraded.update(_roots(tmp_path), now=FIXED_NOW)
    assert words.words_below(upgraded.conn, "side") == 0
    assert "serverror" in compare(upgraded, monkeypatch)
    assert {q: answers(upgraded, q, False) for q in QUERIES} == fresh
    upgraded.close()


def test_a_rewritten_log_leaves_no_stale_answers(tmp_path, monkeypatch):
    write_logs(tmp_path / "logs")
    db = build_index(tmp_path / "logs", tmp_path / "index.sqlite3")
    write_logs(tmp_path / "logs", rare=["a calmday here", "another calmday, server error"])
    index = Index(db)
    index.update(_roots(tmp_path), now=FIXED_NOW)
    assert answers(index, "calmday", False)[1] >= 2
    assert "serverror" in compare(index, monkeypatch, [*QUERIES, "calmday"])
    # The words of the removed messages stay in the index, naming messages that are gone.
    assert index.conn.execute("SELECT count(*) FROM side.words WHERE words MATCH 'serverror'").fetchone()[0] > 0
    assert answers(index, "serverror", False)[1] == 0
    index.close()


def _roots(tmp_path):
    from agent_logs import only_roots

    return only_roots({"claude-code": [tmp_path / "logs"]})


def test_each_connection_fills_its_own_probe_one_search_at_a_time(tmp_path):
    first, second = sqlite3.connect(tmp_path / "a.db"), sqlite3.connect(tmp_path / "b.db")
    lock = words._probe_lock(first)
    assert words._probe_lock(first) is lock
    with lock:  # a search on one connection does not hold up another's
        assert words._probe_lock(second).acquire(blocking=False)
    first.close()
    second.close()


PHRASES = [
    '"retry the connection"',
    '"retry the connection to the serverrors pool"',
    '"the websocket timeout again"',
    '"server error log shows"',
    '"retry the connection" OR flamegraph',
    '"retry the connection" OR "the cache invalidation"',
    '"retry the connection" timeout',
    '"retry the connection" 驗收',
    '"retry the connection" -deploy',
    '"retry the connection" -验收 -资料库',
    '"资料库 migration: serverror_v2"',
    '"retry the connection" \U0002b748ab',  # the folded form of U+346E: no character of the BMP's CJK blocks
    '"retry the connection" project:alpha since:2026-03-04',
    '"raised the timeout; the server"',
    '"a \u212aelvin sign"',
    '"the websocket timeout again" serverror',
    '"no such phrase anywhere"',
]


def test_a_long_phrase_narrowed_by_its_trigrams_gives_the_plain_answers(index, monkeypatch):
    monkeypatch.setattr(words, "MAX_MESSAGES", 0)  # the word index names too many: left to the phrase
    taken = compare(index, monkeypatch, PHRASES, sparse_phrase, "candidate_batches")
    filtered = '"retry the connection" project:alpha since:2026-03-04'  # the walk reads only its sessions
    assert taken >= set(PHRASES) - {'"no such phrase anywhere"', filtered} and filtered not in taken
    assert answers(index, '"retry the connection"', False)[1] >= 8
    assert answers(index, '"no such phrase anywhere"', False)[1] == 0


def test_the_phrase_path_walks_in_batches_and_gives_up_past_its_cap(index, monkeypatch):
    monkeypatch.setattr(words, "MAX_MESSAGES", 0)
    monkeypatch.setattr(fts, "CANDIDATES", 3)  # a few candidates per batch: several batches
    monkeypatch.setattr(sparse_phrase, "DENSE", 0)
    assert compare(index, monkeypatch, PHRASES[:4], sparse_phrase, "candidate_batches") == set(PHRASES[:4])
    conn, tables = index.conn, candidates.TRIGRAM_TABLES
    expression = sparse_phrase.sparse_expression(groups('"retry the connection"'))
    every = {r[0] for t in tables for r in conn.execute(f"SELECT rowid FROM {t} WHERE {t} MATCH ?", (expression,))}
    batches = list(sparse_phrase.candidate_batches(conn, tables, expression, 2))
    floors = [floor for _, floor in batches]
    assert len(batches) >= 3 and floors == sorted(floors, reverse=True) and floors[-1] == 0
    named = [i for ids, _ in batches for i in ids]
    assert sorted(named) == sorted(every)  # each once, none missed
    for n, (_, floor) in enumerate(batches):  # every id at or above a batch's floor is named by then
        assert {i for i in every if i >= floor} <= {i for ids, _ in batches[: n + 1] for i in ids}
    for sample in (2, 5, sparse_phrase.SAMPLE):  # a sample of only the newest few: the first batch goes on below it
        monkeypatch.setattr(sparse_phrase, "SAMPLE", sample)
        again = list(sparse_phrase.candidate_batches(conn, tables, expression, 2))
        assert [i for ids, _ in again for i in ids] == named and [f for _, f in again] == floors
    monkeypatch.setattr(sparse_phrase, "MAX_ROUNDS_OF_LIMIT", 0)  # gives up after one batch: the walk answers
    assert len(list(sparse_phrase.candidate_batches(conn, tables, expression, 2))) == 1
    compare(index, monkeypatch, PHRASES[:1], sparse_phrase, "candidate_batches")
    monkeypatch.setattr(sparse_phrase, "DENSE", 10**9)  # every superset counts as dense: the walk answers
    monkeypatch.setattr(sparse_phrase, "SAMPLE", 2)
    assert sparse_phrase.candidate_batches(conn, tables, expression, 2) is None


@pytest.mark.parametrize("phrase", ["retry the connection", "the websocket timeout again", "abcabc abcabcabc",
                                    'say "hi" to them all', "資料庫 migration done", "x = 1; y = 2; z = 3",
                                    "\u212aelvin and \u017fome more", "aaaaaaa aaaaaaaaa"])
def test_a_sparse_term_matches_every_message_its_phrase_does(phrase):
    """Checked against FTS5 itself: the phrase at every offset in texts of other words."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (text, tokenize='trigram')")
    texts = [f"{pre}{phrase}{post}" for pre in ("", "a ", "xyz: ", "長い ") for post in ("", " b", "!!")]
    texts += [phrase.replace(" ", "  "), phrase[::-1], phrase[1:], phrase[:-1], " ".join(reversed(phrase.split()))]
    conn.executemany("INSERT INTO t(rowid, text) VALUES (?, ?)", enumerate(texts, 1))
    sparse = sparse_phrase.sparse_term(phrase)
    assert sparse is not None and sparse.startswith("NEAR(")

    def matched(expression):
        return {r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expression,))}

    exact = matched('"' + phrase.replace('"', '""') + '"')
    assert len(exact) >= 12
    assert exact <= matched(sparse)
    assert sparse_phrase.sparse_term("short one") is None
    assert sparse_phrase.sparse_term("flamegraphs_and_more") is None  # one word: the word index's


def test_a_phrase_of_common_words_is_narrowed_to_messages_holding_them_all(index, monkeypatch):
    conn = index.conn
    monkeypatch.setattr(words, "MAX_MESSAGES", 10)  # each word alone is in more messages
    assert words.candidate_ids(conn, groups("timeout")) is None
    assert words.candidate_ids(conn, groups("deploy")) is None
    assert words.candidate_ids(conn, groups('"deploy; timeout"')) == []  # never in one message
    both = words.candidate_ids(conn, groups('"retry the connection to the serverrors pool"'))
    assert both and len(both) <= 10
    assert words.candidate_ids(conn, groups('"deploy; timeout" OR flamegraph')) is None
    taken = compare(index, monkeypatch, ['"deploy; timeout"', '"retry the connection to the serverrors pool"',
                                         '"the serverror came"', '"retry the connection"'])
    assert taken == {'"deploy; timeout"', '"retry the connection to the serverrors pool"', '"the serverror came"'}


def test_a_word_whose_candidates_rarely_match_is_walked_instead_of_probed(tmp_path, monkeypatch):
    """``'Report'`` in quotes: the word index names every message holding "report", and the
    newest of them hold too few matches; past ``WALK_PAST`` more, the walk answers (its
    rare trigrams find the match) instead of the probe reading every one. Same answer."""
    for n in range(22):
        texts = [f"cannot import name report from the module, try {n} {i}" for i in range(60)]
        if n == 0:
            texts[3] = "ImportError: cannot import name 'Report' from the module"
        claude_session(tmp_path / "logs", f"s{n:02d}", "alpha", texts, day=1 + n % 20)
    index = Index(build_index(tmp_path / "logs", tmp_path / "index.sqlite3"), readonly=True)
    probed: list[int] = []
    fill = words._fill
    monkeypatch.setattr(words, "_fill", lambda conn, ids, *rest: probed.append(len(ids)) or fill(conn, ids, *rest))

    def found(query: str) -> list[tuple[str, str]]:
        return [(s.session.session_id, s.evidence[0].message.text) for s in
                index.search(query, limit=50, by_session=True, closest=False).sessions]

    expected = [("s00", "ImportError: cannot import name 'Report' from the module")]
    named = words.candidate_ids(index.conn, groups("'Report'"))
    assert named is not None and len(named) == 1320  # every message holds "report"
    assert found("'Report'") == expected and sum(probed) <= 2 * (GROUP_CANDIDATES + 1)
    monkeypatch.setattr(words, "WALK_PAST", 10**6)
    probed.clear()
    assert found("'Report'") == expected and sum(probed) == 1320
    index.close()

"""A floor under search recall on a small, fast part of the labelled set (the written sessions'
training queries; ``bench/quality/score.py`` prints the whole set, held-out part apart)."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer import Index, only_roots

from conftest import FIXED_NOW
from search_quality import LOGS, figures, load, score


@pytest.fixture(scope="module")
def labelled_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("quality") / "index.sqlite3"
    with Index(path) as index:
        index.update(only_roots({"claude-code": [LOGS / "claude-code" / "projects"],
                                 "codex": [LOGS / "codex" / "sessions"]}), now=FIXED_NOW)
    return path


def _answer(index: Index):
    def answer(query: str) -> list[str]:
        return [s.session.session_id for s in index.search(query, by_session=True, limit=20, now=FIXED_NOW).sessions]
    return answer


def test_recall_floor_on_the_written_sessions(labelled_db):
    items = [i for i in load("train") if len(i.session) == 36]  # the written sessions (full ids)
    with Index(labelled_db, readonly=True) as index:
        outcomes = score(items, _answer(index))
    exact = figures([o for o in outcomes if o.item.group == "exact"])
    recalled = figures([o for o in outcomes if o.item.group != "exact"])
    assert exact.hit1 == exact.n  # no loss on queries copied from the session
    # 87% and 93% now. The set grew by 17 queries for errors seen only in a tool's output (issue
    # 32), which the code before output search found first for 5 of 17 (15 of 17 now).
    assert recalled.hit1 >= 0.86 * recalled.n and recalled.hit3 >= 0.92 * recalled.n, recalled
    assert figures(outcomes).empty <= 1


def test_errors_seen_only_in_output_are_found(labelled_db):
    items = [i for i in load("train") if i.group == "output"]
    with Index(labelled_db, readonly=True) as index:
        found = figures(score(items, _answer(index)))
    assert found.n >= 15 and found.hit1 >= 0.85 * found.n and found.hit3 == found.n, found


def test_the_same_set_without_closest_matches_is_mostly_empty(labelled_db):
    """The floor above measures this change: strict AND alone leaves most recall queries empty."""
    items = [i for i in load("train") if len(i.session) == 36 and i.group != "exact"]
    with Index(labelled_db, readonly=True) as index:
        outcomes = score(items, lambda q: [s.session.session_id for s in index.search(
            q, by_session=True, limit=20, now=FIXED_NOW, closest=False).sessions])
    assert figures(outcomes).empty >= 0.6 * len(items)


def test_queries_in_another_language_than_the_session(labelled_db):
    """Chinese or Japanese for a session in English and English for one in Chinese or Japanese
    (the glossary, both ways): 9 of 17 first, 12 in the top 3 on these sessions; 8 and 10 with
    the Chinese and Japanese to English way alone."""
    items = [i for i in load("train") if i.group == "cross-language"]
    with Index(labelled_db, readonly=True) as index:
        found = figures(score(items, _answer(index)))
    assert found.n >= 15 and found.hit1 >= 9 and found.hit3 >= 12, found

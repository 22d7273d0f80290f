"""The exact answer of a search, followed by its closest matches on the same page.

The sessions (or messages) holding every word keep their ranking and come first; closest
matches (``indexer.search.closest``) fill the rest of the page, never repeating one already
given. Paging counts through both: page two of a query with 30 exact sessions and a page size
of 20 shows the last 10 exact ones, then closest ones.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from indexer.search.candidates import Filters
from indexer.search.closest import Closest, find_closest
from indexer.search.results import SearchResult, SessionHit, hits_for
from indexer.search.plan import SearchPlan


def _index_path(conn: sqlite3.Connection) -> str | None:
    """The index file's path, as bytes first: a folder name need not be UTF-8."""
    import os

    factory = conn.text_factory
    conn.text_factory = bytes
    try:
        rows = conn.execute("PRAGMA database_list").fetchall()
    finally:
        conn.text_factory = factory
    for row in rows:
        if row[1] == b"main":
            return os.fsdecode(row[2]) or None
    return None


def _annotated(result: SearchResult, closest: Closest, exact_total: int, closest_from: int, added: int) -> SearchResult:
    return result._replace(
        total=exact_total + added, closest_from=closest_from, exact_total=exact_total,
        corrections=tuple(closest.corrections.items()), tried=closest.tried,
        not_searched=closest.not_searched, meaning=closest.meaning,
    )


def with_closest_sessions(conn: sqlite3.Connection, plan: SearchPlan, filters: Filters, exact: SearchResult,
                          limit: int, offset: int, context: int, evidence: int,
                          every_exact: Callable[[int], SearchResult]) -> SearchResult:
    exact_total = exact.total
    earlier = every_exact(exact_total).sessions if offset and exact_total else exact.sessions
    skip = {s.session.id for s in earlier}
    closest = find_closest(conn, plan, filters, skip_messages=set(), skip_sessions=skip,
                           wanted=offset + limit, index_path=_index_path(conn))
    start = max(0, offset - exact_total)
    page = closest.sessions[start:start + max(0, limit - len(exact.sessions))]
    terms = list(plan.query.positive_terms)
    scored = [(score, mid, closest.terms.get(mid, terms), how) for score, _, mids, how in page for mid in mids[:evidence]]
    by_id = {h.message.id: h for h in hits_for(conn, scored, context)}
    added = []
    for score, _, mids, how in page:
        shown = tuple(by_id[m] for m in mids[:evidence] if m in by_id)
        if shown:
            added.append(SessionHit(shown[0].session, score, len(mids), shown, shown[0].parent, how))
    sessions = (*exact.sessions, *added)
    result = exact._replace(sessions=sessions, hits=[s.evidence[0] for s in sessions])
    return _annotated(result, closest, exact_total, len(exact.sessions), len(closest.sessions))


def with_closest_messages(conn: sqlite3.Connection, plan: SearchPlan, filters: Filters, exact: SearchResult,
                          limit: int, offset: int, context: int,
                          every_exact: Callable[[int], SearchResult]) -> SearchResult:
    exact_total = exact.total
    earlier = every_exact(exact_total).hits if offset and exact_total else exact.hits
    closest = find_closest(conn, plan, filters, skip_messages={h.message.id for h in earlier},
                           skip_sessions={h.session.id for h in earlier}, wanted=offset + limit,
                           index_path=_index_path(conn))
    start = max(0, offset - exact_total)
    room = max(0, limit - len(exact.hits))
    terms = list(plan.query.positive_terms)
    lexical = [(score, mid, closest.terms.get(mid, terms), how) for score, mid, how in closest.messages]
    meaning = [(score, mids[0], terms, how) for score, _, mids, how in closest.sessions if how == "meaning"]
    chosen = (lexical + meaning)[start:start + room]
    result = exact._replace(hits=[*exact.hits, *hits_for(conn, chosen, context)])
    return _annotated(result, closest, exact_total, len(exact.hits), len(lexical) + len(meaning))

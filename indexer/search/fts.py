"""Answering a parsed query from the index, message by message or session by session.

- Message view: the newest ``CANDIDATES`` messages holding every word (through the trigram and
  bigram indexes; short words checked in them), ranked by ``indexer.search.scoring``.
- Session view (``by_session``): every word somewhere in one session; results are sessions with
  their best messages as evidence (``indexer.search.session_search``).

Every read is bounded (newest matches first, see ``indexer.search.candidates``): the newest
few hundred matches are where people look, and ``ORDER BY rank`` over every match would cost
hundreds of ms on a big index (SQLITE.md). Recency only breaks ties.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from indexer.models import Hit
from indexer.search.candidates import (
    Filters,
    all_groups_sources,
    fold_pending,
    newest,
    occurs,
    parents_of,
    short_filter,
)
from indexer.search.plan import SearchPlan, and_expressions, make_plan
from indexer.search.query import Query, QueryError, Term, taking_literally
from indexer.search.results import SearchResult, SessionHit, hits_for  # noqa: F401 - also imported from here
from indexer.search.scoring import Evidence, Weights, message_score, scanner
from indexer.search.snippets import make_snippet
from indexer.store.rows import fetch_context, fetch_messages, message_from_row, sessions_by_rowid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from indexer.project_scope import ProjectScope

CANDIDATES = 500  # message view: the newest matches ranked
EVIDENCE_PER_SESSION = 3  # session view: the best messages shown for each session (default)


def resolve_flags(conn: sqlite3.Connection, query: Query) -> Query:
    """Take ``word -word`` literally where that pair occurs in the index (``java -version``)."""
    flags = [term for term, pair in query.ambiguous if occurs(conn, pair)]
    return taking_literally(query, flags)


def run_search(
    conn: sqlite3.Connection,
    query: Query,
    *,
    limit: int = 50,
    offset: int = 0,
    by_session: bool = False,
    exclude_sessions: tuple[str, ...] = (),
    context: int = 0,
    project_scope: ProjectScope | None = None,
    evidence: int = EVIDENCE_PER_SESSION,
    closest: bool = True,
) -> SearchResult:
    """The messages (or sessions) holding every word of ``query``, then, when they are fewer
    than a page, its closest matches."""
    if query.ambiguous:
        query = resolve_flags(conn, query)
    if not query.groups:
        return _nothing_to_search(query)
    plan = make_plan(query, unfolded_too=fold_pending(conn))
    filters = Filters(plan, exclude_sessions, project_scope)
    closest = closest and _closest_may_follow(query)
    # One word already found: every session holding part of the query holds all of it.
    one_word = len(query.positive_terms) == 1
    nowhere = _a_cjk_word_found_nowhere(conn, plan)
    if by_session:
        return _session_answer(conn, plan, filters, limit, offset, context, max(1, evidence),
                               nowhere=nowhere, closest=closest, one_word=one_word)
    return _message_answer(conn, plan, filters, limit, offset, context,
                           nowhere=nowhere, closest=closest, one_word=one_word)


def _nothing_to_search(query: Query) -> SearchResult:
    """The answer to a query with no word to look for: empty, or an error telling the person
    what to type when filters, exclusions or a too-short line show they meant a search."""
    if query.excluded or query.has_filters:
        raise QueryError("add at least one word to search for (filters and exclusions only narrow a search)")
    if query.literal_line:
        raise QueryError(f"“{query.literal_line}” is too short to search for: type a word of 2 or more "
                         "characters (a single CJK character such as 表 works)")
    return SearchResult([], 0, False, query, query.warnings, notes=query.notes)


def _closest_may_follow(query: Query) -> bool:
    """Whether the query's wording leaves room for closest matches after the exact ones."""
    # A quoted phrase or an OR asks for exactly what it says: no closest matches after it.
    return not any(t.phrase for t in query.positive_terms) and not any(len(g) > 1 for g in query.groups)


def _exact_is_enough(exact: SearchResult, wanted: int, *, closest: bool, one_word: bool) -> bool:
    """Whether the exact answer stands alone: closest matches not wanted, ``wanted`` results
    already exact, or the query's one word found (nothing partly matching is left to add)."""
    return not closest or exact.total >= wanted or (one_word and exact.total != 0)


def _session_answer(conn: sqlite3.Connection, plan: SearchPlan, filters: Filters, limit: int, offset: int,
                    context: int, evidence: int, *, nowhere: bool, closest: bool, one_word: bool) -> SearchResult:
    """The session view: sessions holding every word, then closest ones if the page is short."""
    exact = (SearchResult([], 0, False, plan.query, plan.query.warnings, (), by_session=True, notes=plan.query.notes)
             if nowhere else _session_view(conn, plan, filters, limit, offset, context, evidence))
    if _exact_is_enough(exact, offset + limit, closest=closest, one_word=one_word):
        return exact._replace(closest_from=len(exact.sessions), exact_total=exact.total)
    from indexer.search.closest_results import with_closest_sessions

    return _or_exact(exact, lambda: with_closest_sessions(
        conn, plan, filters, exact, limit, offset, context, evidence,
        lambda n: _session_view(conn, plan, filters, n, 0, 0, 1)))


def _message_answer(conn: sqlite3.Connection, plan: SearchPlan, filters: Filters, limit: int, offset: int,
                    context: int, *, nowhere: bool, closest: bool, one_word: bool) -> SearchResult:
    """The message view: messages holding every word, then closest ones if the page is short."""
    exact = (SearchResult([], 0, False, plan.query, plan.query.warnings, notes=plan.query.notes) if nowhere
             else _message_view(conn, plan, filters, limit, offset, context))
    if _exact_is_enough(exact, offset + limit, closest=closest, one_word=one_word):
        return exact._replace(closest_from=len(exact.hits), exact_total=exact.total)
    from indexer.search.closest_results import with_closest_messages

    return _or_exact(exact, lambda: with_closest_messages(conn, plan, filters, exact, limit, offset, context,
                                                          lambda n: _message_view(conn, plan, filters, n, 0, 0)))


def _a_cjk_word_found_nowhere(conn: sqlite3.Connection, plan: SearchPlan) -> bool:
    """Whether a two-character CJK word of the query is in no message (one lookup in the bigram
    index each): every word must be found for an exact answer, and walking the messages that
    hold the others, to learn that, cost 75 ms on 1 GB (``deploy 驗收``). Words the trigram
    tables hold are left to the word index, which answers their absence as cheaply."""
    for group in plan.indexed:
        if group.bigram and not group.trigram and conn.execute(
                "SELECT 1 FROM cjk2 WHERE cjk2 MATCH ? LIMIT 1", (group.bigram,)).fetchone() is None:
            return True
    return False


def _or_exact(exact: SearchResult, closest: Callable[[], SearchResult]) -> SearchResult:
    """The exact answer with its closest matches; the exact answer alone when the closest
    search is interrupted (a hook's deadline): what holds every word is never lost to it."""
    try:
        return closest()
    except sqlite3.OperationalError as exc:
        if "interrupt" not in str(exc).lower():
            raise
        return exact._replace(closest_from=len(exact.sessions if exact.by_session else exact.hits),
                              exact_total=exact.total, notes=(*exact.notes, "closest matches cut short: out of time"))


def _message_view(conn: sqlite3.Connection, plan: SearchPlan, filters: Filters, limit: int, offset: int,
                  context: int) -> SearchResult:
    trigram, bigram, mixed = and_expressions(plan)
    sources = all_groups_sources(plan, trigram, bigram, mixed)
    if plan.indexed and plan.short:  # short words narrow in SQL too, so a page fills up
        where, params = short_filter(plan)
        sources = [s._replace(where=s.where + where, params=s.params + params) for s in sources]
    found = newest(conn, sources, filters, CANDIDATES, with_text=True)
    texts = found.texts
    weights = Weights.of(plan, {})
    scored = []
    scan = scanner(plan)
    for c in found.rows:
        ev = scan(c, texts.get(c.id, ""))
        if ev is None or not ({g.index for g in plan.short} <= ev.groups):
            continue
        scored.append((round(message_score(ev, weights), 3), ev.ts, ev))
    scored.sort(key=lambda item: (item[0], item[1], item[2].candidate.id), reverse=True)
    page = scored[offset : offset + limit]
    hits = _hits(conn, plan.query, [(score, ev) for score, _, ev in page], context)
    return SearchResult(hits, len(scored), found.capped, plan.query, plan.query.warnings, notes=plan.query.notes)


def _session_view(conn: sqlite3.Connection, plan: SearchPlan, filters: Filters, limit: int, offset: int,
                  context: int, shown_per_session: int) -> SearchResult:
    from indexer.search.session_search import rank_sessions  # its records: the session view's only

    ranking = rank_sessions(conn, plan, filters, offset + limit)
    page = ranking.sessions[offset : offset + limit]
    best: list[tuple[float, Evidence]] = []
    shown: list[list[tuple[float, Evidence]]] = []
    for ranked in page:
        evs = sorted(((round(score, 3), ev) for score, ev in ranked.evidence),
                     key=lambda item: (item[0], item[1].ts, item[1].candidate.id), reverse=True)
        shown.append(evs[:shown_per_session])
        best += evs[:shown_per_session]
    hits = {h.message.id: h for h in _hits(conn, plan.query, best, context)}
    results = []
    for ranked, evs in zip(page, shown):
        evidence_hits = tuple(hits[ev.candidate.id] for _, ev in evs)
        first = evidence_hits[0]
        results.append(SessionHit(first.session, round(ranked.score, 3), ranked.matches, evidence_hits,
                                  first.parent))
    return SearchResult(
        [s.evidence[0] for s in results], len(ranking.sessions), ranking.capped, plan.query,
        plan.query.warnings, tuple(results), by_session=True, notes=plan.query.notes,
    )


def _hits(conn: sqlite3.Connection, query: Query, scored: list[tuple[float, Evidence]], context: int) -> list[Hit]:
    """Hits for scored messages, in the order given: message, session, snippet, context."""
    terms: list[Term] = query.positive_terms
    by_id = {r["id"]: r for r in fetch_messages(conn, [ev.candidate.id for _, ev in scored])}
    sessions = sessions_by_rowid(conn, {ev.candidate.session_rowid for _, ev in scored})
    parents = parents_of(conn, list(sessions.values()))
    hits = []
    for score, ev in scored:
        message = message_from_row(by_id[ev.candidate.id], conn, read_logs=False)
        session = sessions[ev.candidate.session_rowid]
        snippet, spans = make_snippet(message.text, terms, line=query.literal_line)
        before, after = fetch_context(conn, message, context, context) if context else ((), ())
        parent = parents.get((session.agent, session.parent_session_id or ""))
        hits.append(Hit(message, session, snippet, tuple(spans), score, before, after, parent))
    return hits

"""What a search answers: hits, sessions, and how they were found. Shared by the exact search
(``indexer.search.fts``) and the closest matches after it (``indexer.search.closest_results``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from indexer.models import Hit, Session
from indexer.util.named_record import NamedTuple
from indexer.search.candidates import parents_of
from indexer.search.query import Query, Term
from indexer.search.snippets import make_snippet
from indexer.store.rows import fetch_context, fetch_messages, message_from_row, sessions_by_rowid


class SessionHit(NamedTuple):
    """One session of a session-level search: its score, how many of its messages matched
    (of those read), and its best matching messages, best first."""

    session: Session
    score: float
    matches: int
    evidence: tuple[Hit, ...]
    parent: Session | None = None  # the session a subagent's hit resumes
    matched: str = "all words"  # how it matched (``indexer.search.closest``)


class SearchResult(NamedTuple):
    hits: list[Hit]  # the message view's hits; in the session view, each session's best one
    total: int  # messages ranked (at most CANDIDATES), or sessions found
    capped: bool  # True when more matches exist than were ranked
    query: Query
    warnings: tuple[str, ...] = ()
    sessions: tuple[SessionHit, ...] = ()  # the session view's results
    by_session: bool = False
    notes: tuple[str, ...] = ()  # how the query was read (dropped words, a command line)
    # Closest matches (``indexer.search.closest``): where they start in the page (hits, or
    # sessions in the session view; the page's length when there are none), the spellings
    # searched instead of typed words, what was tried and what was not searched, and whether
    # meaning (embeddings) answered: "used", "no match", "unavailable" or "not needed".
    closest_from: int = -1
    exact_total: int = -1
    corrections: tuple[tuple[str, str], ...] = ()
    tried: tuple[str, ...] = ()
    not_searched: tuple[str, ...] = ()
    meaning: str = "not needed"

    @property
    def showing_results_for(self) -> str | None:
        """The query as searched with near spellings in place of typed words, if any was used."""
        if not self.corrections:
            return None
        from indexer.search.recall_words import respelled

        shown = respelled(self.query.raw, dict(self.corrections))
        return shown if shown != self.query.raw else None  # a correction of no word typed says nothing

    def map_hits(self, change: Callable[[Hit], Hit]) -> "SearchResult":
        """The same result with ``change`` applied to every hit, the session view's evidence
        included (e.g. to mask what must not be shown)."""
        changed = {id(h): change(h) for h in (*self.hits, *(e for s in self.sessions for e in s.evidence))}
        sessions = tuple(s._replace(evidence=tuple(changed[id(e)] for e in s.evidence)) for s in self.sessions)
        return self._replace(hits=[changed[id(h)] for h in self.hits], sessions=sessions)


def hits_for(conn: sqlite3.Connection, scored: list[tuple[float, int, list[Term], str]], context: int) -> list[Hit]:
    """Hits for closest matches: (score, message id, the words it was found by, how it matched)."""
    by_id = {r["id"]: r for r in fetch_messages(conn, [mid for _, mid, _, _ in scored])}
    rows = [by_id[mid] for _, mid, _, _ in scored if mid in by_id]
    sessions = sessions_by_rowid(conn, {r["session_rowid"] for r in rows})
    parents = parents_of(conn, list(sessions.values()))
    hits = []
    for score, mid, terms, matched in scored:
        if mid not in by_id:
            continue
        message = message_from_row(by_id[mid], conn, read_logs=False)
        session = sessions[message.session_rowid]
        snippet, spans = make_snippet(message.text, terms)
        before, after = fetch_context(conn, message, context, context) if context else ((), ())
        parent = parents.get((session.agent, session.parent_session_id or ""))
        hits.append(Hit(message, session, snippet, tuple(spans), score, before, after, parent, matched))
    return hits

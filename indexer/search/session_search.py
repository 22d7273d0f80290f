"""Session-level search: every word must occur in one session, not necessarily in one message.

Each indexed word group is asked for its newest matches (bounded), and so are the messages
holding every group at once; a session whose matches cover every group qualifies. A common
word's window may not reach back far enough: a session that has the rarer words but no match
of a common one inside that word's window, while it has older messages, is checked directly
(its id range in that word's index, a bounded FTS5 range read) for the sessions that already
hold the most groups, at most ``PROBE_SESSIONS`` of them, group by group (all of them in one
read where that word's index holds few matches across their ranges, ``candidates.within``).
Short words (``-s``, 表) are matched in the messages found, and the session's evidence is
added up in ``indexer.search.scoring``.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from indexer.util.named_record import NamedTuple
from indexer.search.candidates import (
    Candidate,
    Filters,
    Found,
    all_groups_sources,
    group_sources,
    message_total,
    newest,
    texts_of,
    within,
)
from indexer.search.narrowing import session_bounds
from indexer.search.plan import PlannedGroup, SearchPlan, and_expressions
from indexer.search.scoring import Evidence, Weights, idf, message_score, scanner, session_score

GROUP_CANDIDATES = 300  # newest matches read for one word group; several share twice that
PROBE_SESSIONS = 24  # sessions checked directly for a group outside its window
PROBE_HITS = 8  # matches read per probed session and group
TEXTS_PER_SESSION = 48  # newest candidate messages per session read for evidence


class RankedSession(NamedTuple):
    session_rowid: int
    score: float
    newest: float
    evidence: tuple[tuple[float, Evidence], ...]  # every matching message read, with its score
    matches: int  # matching messages found (some may not have been read)


class SessionRanking(NamedTuple):
    sessions: list[RankedSession]  # best first
    weights: Weights
    capped: bool  # some word had more matches than were read


def rank_sessions(conn: sqlite3.Connection, plan: SearchPlan, filters: Filters, wanted_sessions: int) -> SessionRanking:
    """Sessions holding every group, best first. ``wanted_sessions`` (offset + limit): when the
    windows already hold that many complete sessions and more, no session is probed."""
    groups = plan.indexed
    found = _windows(conn, plan, filters)
    found_by = _FoundBy.of(found, groups)
    probing = len(found_by.complete) < wanted_sessions + PROBE_SESSIONS  # else enough sessions have every word
    if probing and any(f.capped for f in found[: len(groups)]) and len(groups) > 1:
        _probe(conn, plan, filters, found[: len(groups)], found_by)

    total = message_total(conn)
    top_id = conn.execute("SELECT coalesce(max(id), 1) FROM messages").fetchone()[0]
    group_idf = {g.index: idf(_matching(found[k], top_id, total), total) for k, g in enumerate(groups)}
    weights = Weights.of(plan, group_idf)
    evidence = _evidence(conn, plan, found, found_by)
    ranked = _ranked(plan, evidence, weights, found_by)
    return SessionRanking(ranked, weights, any(f.capped for f in found))


def _windows(conn: sqlite3.Connection, plan: SearchPlan, filters: Filters) -> list[Found]:
    """Each group's newest matches, then (several groups, or only short words) the newest
    messages holding them all."""
    groups = plan.indexed
    # One group: every candidate counts, so read the text with it.
    per_group = GROUP_CANDIDATES if len(groups) <= 1 else max(GROUP_CANDIDATES // 3, 2 * GROUP_CANDIDATES // len(groups))
    found: list[Found] = [newest(conn, group_sources(g), filters, per_group, with_text=len(groups) == 1)
                          for g in groups]
    if len(groups) != 1:
        trigram, bigram, mixed = and_expressions(plan)
        found.append(newest(conn, all_groups_sources(plan, trigram, bigram, mixed), filters, GROUP_CANDIDATES))
    return found


class _FoundBy:
    """The candidates found so far: each message with the groups it was found for, each
    session with the groups its messages cover, and the sessions that cover every group."""

    def __init__(self, wanted: frozenset[int]):
        self.wanted = wanted
        self.candidates: dict[int, Candidate] = {}
        self.member: dict[int, set[int]] = defaultdict(set)  # message id -> the groups it was found for
        self.cover: dict[int, set[int]] = defaultdict(set)  # session -> the groups it holds
        self.complete: set[int] = set()

    @classmethod
    def of(cls, found: list[Found], groups) -> _FoundBy:
        out = cls(frozenset(g.index for g in groups))
        for k, f in enumerate(found):
            covers = {groups[k].index} if k < len(groups) else set(out.wanted)
            for c in f.rows:
                out.add(c, covers)
        out.complete = {s for s, got in out.cover.items() if got >= out.wanted}
        return out

    def add(self, c: Candidate, groups: set[int]) -> None:
        self.candidates[c.id] = c
        self.member[c.id] |= groups
        self.cover[c.session_rowid] |= groups

    def per_session(self) -> dict[int, int]:
        """How many candidates each session has."""
        counts: dict[int, int] = defaultdict(int)
        for c in self.candidates.values():
            counts[c.session_rowid] += 1
        return counts


def _evidence(conn: sqlite3.Connection, plan: SearchPlan, found: list[Found], found_by: _FoundBy
              ) -> dict[int, list[Evidence]]:
    """What the chosen matches of each complete session hold (their text read and scanned)."""
    by_session: dict[int, list[Candidate]] = defaultdict(list)
    for c in found_by.candidates.values():
        if c.session_rowid in found_by.complete:
            by_session[c.session_rowid].append(c)
    chosen = [c for cs in by_session.values() for c in _to_read(cs, found_by.member, found_by.wanted)]
    known = found[0].texts if len(plan.indexed) == 1 else {}
    texts = known if all(c.id in known for c in chosen) else texts_of(conn, [c.id for c in chosen])
    evs: dict[int, list[Evidence]] = defaultdict(list)
    scan = scanner(plan)
    for c in chosen:
        ev = scan(c, texts.get(c.id, ""))
        if ev is not None:
            evs[c.session_rowid].append(ev)
    return evs


def _ranked(plan: SearchPlan, evidence: dict[int, list[Evidence]], weights: Weights, found_by: _FoundBy
            ) -> list[RankedSession]:
    short = [g.index for g in plan.short]
    found_in = found_by.per_session()
    ranked = []
    for s, items in evidence.items():
        held = frozenset().union(*(ev.groups for ev in items))
        if any(g not in held for g in short):
            continue  # a short word must be in the messages the other words found
        scored = tuple((message_score(ev, weights), ev) for ev in items)
        best = max(score for score, _ in scored)
        ranked.append(RankedSession(s, session_score(items, weights, best), max(ev.ts for ev in items), scored,
                                    found_in[s]))
    ranked.sort(key=lambda r: (round(r.score, 3), r.newest), reverse=True)
    return ranked


def _to_read(found: list[Candidate], member: dict[int, set[int]], wanted: frozenset[int]) -> list[Candidate]:
    """At most ``TEXTS_PER_SESSION`` of a session's matches: those holding the most groups
    first, then an equal share of each group's newest, so a rare word's messages are read even
    where a common word matched hundreds."""
    if len(found) <= TEXTS_PER_SESSION:
        return found
    ordered = sorted(found, key=lambda c: (len(member[c.id]), c.id), reverse=True)
    share = max(1, TEXTS_PER_SESSION // max(1, len(wanted)))
    chosen: dict[int, Candidate] = {}
    for g in sorted(wanted):
        for c in [c for c in ordered if g in member[c.id]][:share]:
            chosen[c.id] = c
    for c in ordered:
        if len(chosen) >= TEXTS_PER_SESSION:
            break
        chosen.setdefault(c.id, c)
    return list(chosen.values())


def _matching(found: Found, top_id: int, total: int) -> float:
    """How many messages match, estimated from the newest ones read: all of them when the
    window was not full, else scaled by how much of the id range the window spans."""
    count = len(found.rows)
    if not found.capped or not count:
        return float(count)
    span = max(1, top_id - found.oldest + 1)
    return min(float(total), count * top_id / span)


def _probe(conn: sqlite3.Connection, plan: SearchPlan, filters: Filters, found: list[Found], found_by: _FoundBy) -> None:
    """Check the sessions holding the most groups for the groups missing from their windows."""
    groups = plan.indexed
    ranges = session_bounds(conn, _sessions_to_probe(groups, found, found_by))
    for k, g in enumerate(groups):  # group by group: a session that lacks one is not asked the next
        _probe_group(conn, g, filters, found[k].oldest, ranges, found_by)
    for s in ranges:
        if found_by.cover[s] >= found_by.wanted:
            found_by.complete.add(s)


def _sessions_to_probe(groups: tuple[PlannedGroup, ...], found: list[Found], found_by: _FoundBy) -> list[int]:
    """The incomplete sessions holding the most groups (then the most candidates), at most
    ``PROBE_SESSIONS``: only those whose every missing group's window was capped, as a window
    that was not holds all its group's matches."""
    cover, complete = found_by.cover, found_by.complete
    per_session = found_by.per_session()
    undecided = sorted((s for s in cover if s not in complete),
                       key=lambda s: (len(cover[s]), per_session[s], s), reverse=True)
    undecided = [s for s in undecided if all(found[k].capped for k, g in enumerate(groups) if g.index not in cover[s])]
    return undecided[:PROBE_SESSIONS]


def _probe_group(conn: sqlite3.Connection, group: PlannedGroup, filters: Filters, window_oldest: int,
                 ranges: dict[int, tuple[int, int]], found_by: _FoundBy) -> None:
    """Read ``group``'s matches older than its window in each session of ``ranges`` that lacks
    it; a session where none is found cannot hold every group and leaves ``ranges``."""
    cover = found_by.cover
    spans = {s: (low, min(high, window_oldest - 1)) for s, (low, high) in ranges.items()
             if group.index not in cover[s]}
    readable = {s: span for s, span in spans.items() if span[0] <= span[1]}
    got = within(conn, group_sources(group), filters, readable, PROBE_HITS) if readable else {}
    for s in spans:
        for c in got.get(s, ()):
            found_by.add(c, {group.index})
        if not got.get(s):
            del ranges[s]

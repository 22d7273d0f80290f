"""The SQL of a search: matching messages, newest first, from the trigram and bigram indexes,
narrowed by the query's filters and exclusions.

Every read is bounded: a source is asked for its newest ``limit`` matches in rowid order, which
FTS5 answers without walking every match (``ORDER BY rank`` or ``bm25()`` would, see
SQLITE.md). A message whose folded text differs has an entry in both trigram shards
(``indexer.ingest.side``): answers are merged by id.
"""

from __future__ import annotations

import sqlite3

from indexer.models import Session
from indexer.util.named_record import NamedTuple
from indexer.search import filters as registry
from indexer.search.conditions import TRIGRAM_TABLES, Condition, InIndex
from indexer.search.plan import SHORT, TRIGRAM, PlannedGroup, PlannedTerm, SearchPlan, fts_string, trigram_groups
from indexer.search.query import Query, is_cjk
from indexer.search.rare_words import in_ranges
from indexer.search.sparse_phrase import narrowed
from indexer.store.rows import SESSION_COLUMNS, session_from_row
from indexer.store.side_file import SEARCHED_TEXT
from indexer.text.fold import variants

TYPE_CHECKING = False
if TYPE_CHECKING:  # a scope comes with its module: a plain search loads none
    from typing import Literal

    from indexer.project_scope import ProjectScope

SCAN = "messages"  # no index can answer: read messages newest first, testing each
WINDOW_ROUNDS = (8, 64, 512)  # how deep (times the limit) a bounded request looks, before all
# FTS5 reads a rowid range backwards at several times the cost of forwards (it seeks back in
# every segment): the 55 session ranges of a newest-week filter at 1 GB took 159 ms newest
# first and 34 ms oldest first (35 and 20 ms with the segments merged). A range narrower than
# this many ids is read oldest first, in full, and its newest rows kept; a wider one (a huge
# session) newest first, so it stops at the limit.
FORWARD_SPAN = 4096


class _Floor:
    """A parameter standing for the id bounds a request reads (the lowest and, in a range, the
    highest): a sub-query of another index (``m.id IN (SELECT rowid FROM cjk2 ...)``, an
    exclusion) then reads only that stretch, not every match of its word."""


FLOOR = _Floor()
NO_CEILING = 2**63 - 1


class Candidate(NamedTuple):
    """A matching message, before its text is read."""

    id: int
    session_rowid: int
    ts: float | None
    kind: str
    role: str


class Found(NamedTuple):
    """The newest matches of one request: newest first; ``capped`` when older ones exist."""

    rows: tuple[Candidate, ...]
    capped: bool
    texts: dict[int, str] = {}  # with ``with_text``: each row's text (a shared default: never mutated)

    @property
    def oldest(self) -> int:
        return self.rows[-1].id if self.rows else 0


class Source(NamedTuple):
    """Where matches come from: an FTS table and its expression, or a scan of messages; plus
    conditions on the message (``m``) that this source needs. ``groups``: the planned groups
    whose expressions ``match`` joins with AND (the word path reads their terms)."""

    table: str
    match: str | None = None
    where: tuple[Condition, ...] = ()
    params: tuple = ()
    groups: tuple[PlannedGroup, ...] = ()


class Filters:
    """The query's filters, SQL-side exclusions and left-out sessions, as a WHERE clause."""

    def __init__(self, plan: SearchPlan, exclude_sessions: tuple[str, ...] = (),
                 project_scope: ProjectScope | None = None):
        q = plan.query
        where: list[Condition] = ["m.indexed != 0"]
        params: list = []
        for term in plan.excluded:
            if term.kind == SHORT:
                continue  # checked in the text (indexer.search.scoring)
            where.append(InIndex(TRIGRAM_TABLES if term.kind == TRIGRAM else ("cjk2",), negated=True))
            params += [fts_string(term.term.text), FLOOR] * (len(TRIGRAM_TABLES) if term.kind == TRIGRAM else 1)
        session_where, session_params = _session_filters(q, exclude_sessions, project_scope)
        for f in registry.session_filters():  # conditions on the message (role:, since:, in:output)
            value = getattr(q, f.field)
            if f.messages is not None and value is not None and value != "":
                sql, values = f.messages(value)
                where.append(sql)
                params += values
        self.where = [*where, *session_where]
        self.params = params + session_params
        self.joins_sessions = bool(session_where)
        self._session_where, self._session_params = session_where, session_params
        self._since, self._until = q.since, q.until
        self._ranges: list[tuple[int, int]] | None | Literal[False] = False  # False: not looked up yet

    def id_ranges(self, conn: sqlite3.Connection) -> list[tuple[int, int]] | None:
        """The message-id ranges the filters narrow the search to (``indexer.search.narrowing``),
        or ``None``: read the whole index."""
        unfiltered = not self._session_where and self._since is None and self._until is None
        if self._ranges is False and unfiltered:
            self._ranges = None  # no filter names sessions: narrowing's answer, without loading it
        if self._ranges is False:
            from indexer.search.narrowing import session_id_ranges

            self._ranges = session_id_ranges(conn, self._session_where, self._session_params,
                                             self._since, self._until)
        return self._ranges


def _session_filters(q: Query, exclude_sessions: tuple[str, ...], project_scope: ProjectScope | None
                     ) -> tuple[list[str], list]:
    where: list[str] = []
    params: list = []
    for f in registry.session_filters():  # conditions on the session (agent:, project:, file:)
        value = getattr(q, f.field)
        if f.sessions is not None and value:
            sql, values = f.sessions(value)
            where.append(sql)
            params += values
    if project_scope is not None:  # "this project": a folder compared exactly, never a substring
        sql, scope_params = project_scope_condition(project_scope)
        where.append(sql)
        params += scope_params
    if exclude_sessions:
        where.append(f"s.session_id NOT IN ({','.join('?' * len(exclude_sessions))})")
        params += list(exclude_sessions)
    return where, params


def project_scope_condition(scope: ProjectScope) -> tuple[str, list]:
    """Sessions whose folder is the scope's path (or, with its subfolders, under it)."""
    if scope.include_subfolders:
        return ("(s.project_path = ? OR s.project_path LIKE ? ESCAPE '\\')",
                [scope.path, registry.like_escape(scope.subfolder_prefix) + "%"])
    return "s.project_path = ?", [scope.path]




def short_condition(terms: tuple[PlannedTerm, ...]) -> tuple[str, list]:
    """SQL that keeps messages holding any of these short terms (a pre-filter for a scan: the
    text check in scoring has the last word). A single CJK character is tested in each script."""
    parts, params = [], []
    for t in terms:
        if len(t.typed) == 1 and is_cjk(t.typed):
            for v in variants(t.typed):
                parts.append(f"instr({SEARCHED_TEXT}, ?) > 0")
                params.append(v)
        else:
            parts.append(f"instr(lower({SEARCHED_TEXT}), ?) > 0")
            params.append(t.needle)
    return "(" + " OR ".join(parts) + ")", params


def group_sources(group: PlannedGroup) -> list[Source]:
    """Where the matches of one OR group come from."""
    sources = [Source(t, group.trigram, groups=(group,)) for t in TRIGRAM_TABLES] if group.trigram else []
    if group.bigram:
        sources.append(Source("cjk2", group.bigram))
    if not sources:
        sql, params = short_condition(group.terms)
        sources.append(Source(SCAN, None, (sql,), tuple(params)))
    return sources


def all_groups_sources(plan: SearchPlan, trigram: str | None, bigram: str | None, mixed: list[PlannedGroup]) -> list[Source]:
    """Where messages holding every indexed group come from; with no indexed group, a scan for
    the short ones."""
    where: list[Condition] = []
    params: list = []
    for g in mixed:
        where.append(InIndex((*TRIGRAM_TABLES, "cjk2")))
        params += [g.trigram, FLOOR, g.trigram, FLOOR, g.bigram, FLOOR]
    if trigram and bigram:
        # The trigram index drives; 2-character CJK words narrow, read only as far back as needed.
        where.append(InIndex(("cjk2",)))
        params += [bigram, FLOOR]
        bigram = None
    if trigram:
        return [Source(t, trigram, tuple(where), tuple(params), trigram_groups(plan)) for t in TRIGRAM_TABLES]
    if bigram:
        return [Source("cjk2", bigram, tuple(where), tuple(params))]
    if mixed:  # only mixed groups: drive by the first, the rest narrow
        first, *_ = mixed
        return [Source(s.table, s.match, tuple(where), tuple(params), s.groups) for s in group_sources(first)]
    short_where, short_params = short_filter(plan)
    return [Source(SCAN, None, tuple(where) + short_where, tuple(params) + short_params)]


def short_filter(plan: SearchPlan) -> tuple[tuple[str, ...], tuple]:
    """Conditions keeping messages that hold every short group."""
    where: list[str] = []
    params: list = []
    for g in plan.short:
        sql, p = short_condition(g.terms)
        where.append(sql)
        params += p
    return tuple(where), tuple(params)


COLUMNS = "m.id, m.session_rowid, m.ts, m.kind, m.role"


def sessions_of_filtered(conn: sqlite3.Connection, filters: Filters, ids: list[int]) -> dict[int, int]:
    """``{message id: session rowid}`` for those of ``ids`` the query's filters and exclusions
    keep: how a stage that finds messages some other way (search by meaning) honours them."""
    if not ids:
        return {}
    where = [w if isinstance(w, str) else w.sql(None) for w in filters.where]
    params = [v for p in filters.params for v in ((0, NO_CEILING) if p is FLOOR else (p,))]
    found: dict[int, int] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        sql = (f"SELECT m.id, m.session_rowid FROM messages m JOIN sessions s ON s.id = m.session_rowid"
               f" WHERE m.id IN ({','.join('?' * len(chunk))}) AND " + " AND ".join(where))
        found.update(conn.execute(sql, [*chunk, *params]).fetchall())
    return found


def _select(source: Source, filters: Filters, *, ranged: bool, floor: int = 0, ceiling: int = NO_CEILING,
            with_text: bool = False, probe: str | None = None, forward: bool = False) -> tuple[str, list]:
    """The SELECT of one source, newest first (``forward``: oldest first). Its last parameters
    are the id bounds (``ranged``: low and high; else the id to stay above) and the limit;
    ``floor`` is the lowest id any of it needs, below which sub-queries do not read (nor above
    ``ceiling``). ``probe``: a table read in place of every trigram table, the source's own and
    its conditions'."""
    join = " JOIN sessions s ON s.id = m.session_rowid" if filters.joins_sessions else ""
    columns = COLUMNS + (f", {SEARCHED_TEXT}" if with_text else "")
    where = [w if isinstance(w, str) else w.sql(probe) for w in (*filters.where, *source.where)]
    params = [v for p in (*filters.params, *source.params) for v in ((floor, ceiling) if p is FLOOR else (p,))]
    if source.table == SCAN:
        head = f"SELECT {columns} FROM messages m{join} WHERE "
        key = "m.id"
    else:
        t = probe if probe and source.table in TRIGRAM_TABLES else source.table
        head = f"SELECT {columns} FROM {t} JOIN messages m ON m.id = {t}.rowid{join} WHERE {t} MATCH ? AND "
        params.insert(0, source.match)
        key = f"{t}.rowid"
    bound = f"{key} BETWEEN ? AND ?" if ranged else f"{key} > ? AND {key} >= {int(floor)}"
    return head + " AND ".join([*where, bound]) + f" ORDER BY {key} {'ASC' if forward else 'DESC'} LIMIT ?", params


def _read_forward(source: Source, low: int, high: int) -> bool:
    """Whether the range [low, high] of ``source`` is cheaper read oldest first, in full."""
    return source.table != SCAN and high - low < FORWARD_SPAN


def newest(conn: sqlite3.Connection, sources: list[Source], filters: Filters, limit: int, *,
           with_text: bool = False) -> Found:
    """The newest ``limit`` messages any source matches (``with_text``: and their text).

    With sub-queries on other indexes (a 2-character CJK word beside longer ones, an
    exclusion), the newest stretch of ids is read first, then a deeper one only if it held too
    few: the sub-queries read that stretch, not all their word's matches."""
    if all(s.table in TRIGRAM_TABLES for s in sources):  # the word index or a phrase's trigrams narrow
        found = narrowed(conn, sources[0].groups, TRIGRAM_TABLES, filters, limit,
                         lambda probe, floor: _newest_above(conn, sources[:1], filters, limit, floor, with_text, probe),
                         (sources[0].match, *sources[0].params, *filters.params))
        if found is not None:
            return found
    ranges = filters.id_ranges(conn)
    if ranges is not None:
        return _newest_in_ranges(conn, sources, filters, limit, ranges, with_text)
    bounded = any(p is FLOOR for p in (*filters.params, *(p for s in sources for p in s.params)))
    depths = [d * (limit + 1) for d in WINDOW_ROUNDS] if bounded and sources[0].table != SCAN else []
    for depth in [*depths, 0]:
        floor = _nth_newest(conn, sources[0], depth) if depth else 0
        window = _newest_above(conn, sources, filters, limit, floor, with_text)
        if window.capped or not floor:
            return window
    return window


def _nth_newest(conn: sqlite3.Connection, source: Source, depth: int) -> int:
    """The id of ``source``'s ``depth``-th newest match of its own expression (0: fewer)."""
    t = source.table
    row = conn.execute(f"SELECT rowid FROM {t} WHERE {t} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                       (source.match, depth - 1)).fetchone()
    return row[0] if row else 0


def _newest_above(conn: sqlite3.Connection, sources: list[Source], filters: Filters, limit: int, floor: int,
                  with_text: bool, probe: str | None = None) -> Found:
    rows: dict[int, Candidate] = {}
    texts: dict[int, str] = {}
    kept_above = 0
    for source in sources:
        sql, params = _select(source, filters, ranged=False, floor=floor, with_text=with_text, probe=probe)
        for r in conn.execute(sql, [*params, kept_above, limit + 1]):
            rows[r[0]] = Candidate(*r[:5])
            if with_text:
                texts[r[0]] = r[5]
        if len(rows) > limit:
            # A later source only needs what is newer than the oldest candidate kept so far.
            kept_above = sorted(rows, reverse=True)[limit]
    ordered = sorted(rows.values(), key=lambda c: c.id, reverse=True)
    return Found(tuple(ordered[:limit]), len(ordered) > limit, texts)


def _newest_in_ranges(conn: sqlite3.Connection, sources: list[Source], filters: Filters, limit: int,
                      ranges: list[tuple[int, int]], with_text: bool) -> Found:
    """``newest``, asking each source only inside ``ranges`` (disjoint, highest first) that
    hold a match of its expression: once a source gave more than ``limit`` rows, every later
    range is older than all of them."""
    from indexer.search.narrowing import RangeWalk  # only with ranges, which that module made

    rows: dict[int, Candidate] = {}
    texts: dict[int, str] = {}
    for source in sources:
        taken = 0
        walk = RangeWalk(conn, None if source.table == SCAN else source.table, source.match, ranges)
        for low, high in walk:
            forward = _read_forward(source, low, high)
            sql, params = _select(source, filters, ranged=True, floor=low, ceiling=high, with_text=with_text,
                                  forward=forward)
            before = taken
            for r in conn.execute(sql, [*params, low, high, -1 if forward else limit + 1]):
                rows[r[0]] = Candidate(*r[:5])
                taken += 1
                if with_text:
                    texts[r[0]] = r[5]
            walk.found(taken > before)
            if taken > limit:
                break
    ordered = sorted(rows.values(), key=lambda c: c.id, reverse=True)
    return Found(tuple(ordered[:limit]), len(ordered) > limit, texts)


def within(conn: sqlite3.Connection, sources: list[Source], filters: Filters,
           spans: dict[int, tuple[int, int]], limit: int) -> dict[int, list[Candidate]]:
    """For each session of ``spans`` (session rowid -> lowest and highest id to read), the
    newest ``limit`` of its matches in that range, newest first.

    A source is first read once across all the spans, oldest first, up to ``ACROSS_SHARE``
    matches a session: one FTS5 read in place of one a session, each of which seeks every
    segment again (~0.15 ms). The sessions whose span that read passed are settled; the rest
    (a common word's, whose matches it could not all hold) are read session by session."""
    rows: dict[int, dict[int, Candidate]] = {s: {} for s in spans}
    for source in sources:
        settled = set() if source.table == SCAN else _read_across(conn, source, filters, spans, rows,
                                                                   ACROSS_SHARE * limit * len(spans))
        for s, (low, high) in spans.items():
            if s not in settled:
                rows[s].update((c.id, c) for c in _within_one(conn, source, filters, s, low, high, limit))
    return {s: sorted(got.values(), key=lambda c: c.id, reverse=True)[:limit] for s, got in rows.items()}


ACROSS_SHARE = 4  # matches a probed session may average in one read across all their spans


def _read_across(conn: sqlite3.Connection, source: Source, filters: Filters, spans: dict[int, tuple[int, int]],
                 rows: dict[int, dict[int, Candidate]], cap: int) -> set[int]:
    """The first ``cap`` matches of ``source`` from the lowest span up (ids alone, ~0.5 µs
    each), kept in ``rows`` where they lie in their own session's span; returns the sessions
    whose whole span that read covered."""
    from indexer.search.narrowing import merged_newest_first  # loaded by the session view, the one caller

    if cap < 1:
        return set()
    low, high = min(lo for lo, _ in spans.values()), max(hi for _, hi in spans.values())
    ids = _match_ids_oldest_first(conn, source, low, high, cap)
    settled = _sessions_read_whole(spans, ids, cap, high)
    inside = in_ranges(ids, merged_newest_first([spans[s] for s in settled]))  # sessions may overlap
    _keep_in_own_span(conn, source, filters, (low, high), inside, spans, settled, rows)
    return settled


def _match_ids_oldest_first(conn: sqlite3.Connection, source: Source, low: int, high: int, cap: int) -> list[int]:
    """The first ``cap`` ids ``source``'s own expression matches in [low, high]: the index
    alone, so the messages are read only for the sessions this settles."""
    t = source.table
    return [r[0] for r in conn.execute(
        f"SELECT rowid FROM {t} WHERE {t} MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid LIMIT ?",
        (source.match, low, high, cap))]


def _sessions_read_whole(spans: dict[int, tuple[int, int]], ids: list[int], cap: int, high: int) -> set[int]:
    """The sessions whose whole span the read of ``ids`` (oldest first, at most ``cap``)
    covered: those are settled, nothing of theirs is left to ask one by one."""
    reached = ids[-1] if len(ids) == cap else high  # every match up to here was read
    return {s for s, (_, hi) in spans.items() if hi <= reached}


def _keep_in_own_span(conn: sqlite3.Connection, source: Source, filters: Filters, bounds: tuple[int, int],
                      inside: list[int], spans: dict[int, tuple[int, int]], settled: set[int],
                      rows: dict[int, dict[int, Candidate]]) -> None:
    """Keep in ``rows`` the messages of ``inside`` that the filters keep, each under its own
    settled session and only inside that session's span (another's span may hold it)."""
    join, conditions, params = _message_conditions(source, filters, *bounds)
    for start in range(0, len(inside), 500):
        chunk = inside[start:start + 500]
        sql = (f"SELECT {COLUMNS} FROM messages m{join} WHERE m.id IN ({','.join('?' * len(chunk))}) AND "
               + conditions)
        for r in conn.execute(sql, [*chunk, *params]):
            if r[1] in settled and spans[r[1]][0] <= r[0] <= spans[r[1]][1]:
                rows[r[1]][r[0]] = Candidate(*r)


def _message_conditions(source: Source, filters: Filters, low: int, high: int) -> tuple[str, str, list]:
    """The join, WHERE conditions and parameters that test a message (``m``) against the
    filters and ``source``'s own conditions, their sub-queries read only in [low, high]."""
    join = " JOIN sessions s ON s.id = m.session_rowid" if filters.joins_sessions else ""
    where = [w if isinstance(w, str) else w.sql(None) for w in (*filters.where, *source.where)]
    params = [v for p in (*filters.params, *source.params) for v in ((low, high) if p is FLOOR else (p,))]
    return join, " AND ".join(where), params


def _within_one(conn: sqlite3.Connection, source: Source, filters: Filters, session_rowid: int,
                low: int, high: int, limit: int) -> list[Candidate]:
    """The newest ``limit`` matches of ``source`` among one session's messages with ids in [low, high]."""
    forward = _read_forward(source, low, high)
    sql, params = _select(source, filters, ranged=True, floor=low, ceiling=high, forward=forward)
    sql = sql.replace(" ORDER BY", " AND m.session_rowid = ? ORDER BY", 1)
    if forward:  # read oldest first in full, but only the newest rows come to Python
        sql = f"SELECT * FROM ({sql}) ORDER BY 1 DESC LIMIT {int(limit)}"
    return [Candidate(*r) for r in conn.execute(sql, [*params, low, high, session_rowid, -1 if forward else limit])]


def texts_of(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        out.update(conn.execute(f"SELECT m.id, {SEARCHED_TEXT} FROM messages m WHERE m.id IN ({','.join('?' * len(chunk))})",
                                chunk))
    return out


def message_total(conn: sqlite3.Connection) -> int:
    """How many messages the index holds (kept in meta by each index run)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'message_count'").fetchone()
    return max(1, int(row[0])) if row and row[0] is not None else 1


def fold_pending(conn: sqlite3.Connection) -> bool:
    """An older index not folded yet (indexer.upkeep.refold): search the words as typed too."""
    return conn.execute("SELECT 1 FROM meta WHERE key = 'fold_below'").fetchone() is not None


def occurs(conn: sqlite3.Connection, text: str) -> bool:
    """Whether ``text`` (3+ characters) occurs in any indexed message."""
    return any(
        conn.execute(f"SELECT 1 FROM {t} WHERE {t} MATCH ? LIMIT 1", (fts_string(text),)).fetchone()
        for t in TRIGRAM_TABLES
    )


def parents_of(conn: sqlite3.Connection, sessions: list[Session]) -> dict[tuple[str, str], Session]:
    """The indexed parents of subagent sessions, by (agent, session id)."""
    wanted = {(s.agent, s.parent_session_id) for s in sessions if s.parent_session_id}
    out: dict[tuple[str, str], Session] = {}
    for agent, parent_id in wanted:
        r = conn.execute(f"SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.agent = ? AND s.session_id = ?",
                         (agent, parent_id)).fetchone()
        if r is not None:
            out[(agent, parent_id)] = session_from_row(r)
    return out


"""Answering a parsed query from the index: FTS5 trigram for terms of 3+ characters, the CJK
bigram table for 2-character CJK words, a bounded scan for other 2-character terms.

Ranking: we take the newest ``CANDIDATES`` matching messages (cheap: rowid order), score
them by term frequency over length (computed in SQL for those rows only), favour typed
text over tool lines, and break ties by recency. ``bm25()`` or ``ORDER BY rank`` would walk
every match first, which costs hundreds of ms on a big index (see SQLITE.md). ``ORDER BY rank`` over every match costs hundreds of ms on a big index
(see SQLITE.md); the newest few thousand matches are where people look anyway.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from indexer.models import TEXT, Hit
from indexer.project_scope import ProjectScope
from indexer.search.query import Query, QueryError, Term, is_cjk
from indexer.search.snippets import make_snippet
from indexer.store.models import fetch_context, fetch_messages, message_from_row, sessions_by_rowid

CANDIDATES = 500
MAX_SCORED_TERMS = 8


@dataclass(frozen=True)
class SearchResult:
    hits: list[Hit]
    total: int  # matching messages considered (at most CANDIDATES)
    capped: bool  # True when more matches exist than were ranked
    query: Query
    warnings: tuple[str, ...] = field(default=())


def term_class(term: Term) -> str:
    """'fts' (3+ chars), 'cjk2' (two CJK characters), 'scan' (other 2-char terms)."""
    n = len(term.text)
    if n >= 3:
        return "fts"
    if n == 2 and all(is_cjk(c) for c in term.text):
        return "cjk2"
    if n == 2:
        return "scan"
    raise QueryError(
        f"“{term.text}” is too short to search for: type at least 2 characters "
        "(a 2-character CJK word such as 設定 works)"
    )


def fts_phrase(text: str) -> str:
    """Quote a term as an FTS5 string so no user input is read as FTS syntax."""
    return '"' + text.replace('"', '""') + '"'


def _term_condition(term: Term) -> tuple[str, list]:
    kind = term_class(term)
    if kind == "fts":
        return f"m.id IN ({TRIGRAM_ROWIDS})", [fts_phrase(term.text)] * len(TRIGRAM_TABLES)
    if kind == "cjk2":
        return "m.id IN (SELECT rowid FROM cjk2 WHERE cjk2 MATCH ?)", [fts_phrase(term.text)]
    return "instr(lower(m.text), ?) > 0", [term.text.lower()]


# The two trigram shards (see indexer.ingest.side): a message's text is in one of them.
TRIGRAM_TABLES = ("fts", "fts_side")
TRIGRAM_ROWIDS = " UNION ALL ".join(f"SELECT rowid FROM {t} WHERE {t} MATCH ?" for t in TRIGRAM_TABLES)


def project_scope_condition(scope: ProjectScope) -> tuple[str, list]:
    """Sessions whose folder is the scope's path (or under it): exact, never a substring."""
    if scope.include_subfolders:
        return ("(s.project_path = ? OR s.project_path LIKE ? ESCAPE '\\')",
                [scope.path, _like_escape(scope.subfolder_prefix) + "%"])
    return "s.project_path = ?", [scope.path]


def build_sql(query: Query, exclude_sessions: tuple[str, ...], limit: int,
              project_scope: ProjectScope | None = None) -> list[tuple[str, list]]:
    """SELECTs of matching message ids, each newest first, driven by an FTS table when they
    can be: one per trigram shard, whose answers the caller merges. Each takes the id its
    answers must exceed as its last parameter but one (0: no bound); see ``run_search``."""
    where: list[str] = ["m.indexed != 0"]
    params: list = []
    fts_groups: list[str] = []
    cjk_groups: list[str] = []
    for group in query.groups:
        classes = [term_class(t) for t in group]
        if all(c == "fts" for c in classes):
            fts_groups.append("(" + " OR ".join(fts_phrase(t.text) for t in group) + ")")
            continue
        if all(c == "cjk2" for c in classes):
            cjk_groups.append("(" + " OR ".join(fts_phrase(t.text) for t in group) + ")")
            continue
        parts = []
        for term in group:
            sql, p = _term_condition(term)
            parts.append(sql)
            params.extend(p)
        where.append("(" + " OR ".join(parts) + ")")
    if fts_groups and cjk_groups:
        # The trigram table drives; 2-character CJK words narrow through their own index.
        where.append("m.id IN (SELECT rowid FROM cjk2 WHERE cjk2 MATCH ?)")
        params.append(" AND ".join(cjk_groups))
        cjk_groups = []
    for term in query.excluded:
        sql, p = _term_condition(term)
        where.append(f"NOT ({sql})")
        params.extend(p)
    if query.agent:
        where.append("s.agent = ?")
        params.append(query.agent)
    if query.project:
        where.append("(s.project_name LIKE ? ESCAPE '\\' OR s.project_path LIKE ? ESCAPE '\\')")
        pattern = "%" + _like_escape(query.project) + "%"
        params.extend([pattern, pattern])
    if project_scope is not None:
        sql, p = project_scope_condition(project_scope)
        where.append(sql)
        params.extend(p)
    if query.session:
        where.append("s.session_id LIKE ? ESCAPE '\\'")
        params.append(_like_escape(query.session) + "%")
    if query.role:
        role = query.role.lower()
        if role in ("tool", "tools"):
            where.append("m.kind = 'tool_call'")
        else:
            where.append("m.role = ?")
            params.append("user" if role in ("human", "me") else role)
    if query.since is not None:
        where.append("m.ts >= ?")
        params.append(query.since)
    if query.until is not None:
        where.append("m.ts < ?")
        params.append(query.until)
    if exclude_sessions:
        where.append(f"s.session_id NOT IN ({','.join('?' * len(exclude_sessions))})")
        params.extend(exclude_sessions)

    # Term frequencies computed in SQL over the candidates only: bm25() would first walk
    # every match of every term, which grows with the index.
    tf_terms = query.positive_terms[:MAX_SCORED_TERMS]
    tf_sql = "".join(
        ", (length(m.text) - length(replace(lower(m.text), ?, ''))) / length(?)" for _ in tf_terms
    )
    tf_params = [p for t in tf_terms for p in (t.text.lower(), t.text.lower())]
    select = f"SELECT m.id, m.session_rowid, m.ts, m.kind, m.role, length(m.text){tf_sql}"
    if fts_groups:
        return [
            (
                f"{select} FROM {table} JOIN messages m ON m.id = {table}.rowid"
                " JOIN sessions s ON s.id = m.session_rowid"
                f" WHERE {table} MATCH ? AND " + " AND ".join(where)
                + f" AND {table}.rowid > ? ORDER BY {table}.rowid DESC LIMIT ?",
                [*tf_params, " AND ".join(fts_groups), *params, 0, limit],
            )
            for table in TRIGRAM_TABLES
        ]
    if cjk_groups:
        sql = (
            f"{select} FROM cjk2 JOIN messages m ON m.id = cjk2.rowid"
            " JOIN sessions s ON s.id = m.session_rowid"
            " WHERE cjk2 MATCH ? AND " + " AND ".join(where) + " AND cjk2.rowid > ? ORDER BY cjk2.rowid DESC LIMIT ?"
        )
        return [(sql, [*tf_params, " AND ".join(cjk_groups), *params, 0, limit])]
    sql = (
        f"{select} FROM messages m JOIN sessions s ON s.id = m.session_rowid"
        " WHERE " + " AND ".join(where) + " AND m.id > ? ORDER BY m.id DESC LIMIT ?"
    )
    return [(sql, [*tf_params, *params, 0, limit])]


def _like_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def relevance(length: int, term_frequencies: list[int]) -> float:
    """BM25-like: saturating term frequency, normalised by message length."""
    length_norm = 0.25 + 0.75 * min(length, 4000) / 400
    return sum(tf * 2.2 / (tf + 1.2 * length_norm) for tf in term_frequencies if tf)


def run_search(
    conn: sqlite3.Connection,
    query: Query,
    *,
    limit: int = 50,
    offset: int = 0,
    one_per_session: bool = False,
    exclude_sessions: tuple[str, ...] = (),
    context: int = 0,
    project_scope: ProjectScope | None = None,
) -> SearchResult:
    if not query.groups:
        if query.excluded or query.has_filters:
            raise QueryError("add at least one word to search for (filters and -exclusions only narrow a search)")
        return SearchResult([], 0, False, query, query.warnings)
    rows: list = []
    for sql, params in build_sql(query, exclude_sessions, CANDIDATES + 1, project_scope):
        if len(rows) > CANDIDATES:
            # A later shard only needs what is newer than the oldest candidate so far.
            params = [*params[:-2], rows[CANDIDATES][0], params[-1]]
        rows.extend(conn.execute(sql, params).fetchall())
        rows.sort(key=lambda r: r[0], reverse=True)  # the newest candidates first
    capped = len(rows) > CANDIDATES
    rows = rows[:CANDIDATES]
    if not rows:
        return SearchResult([], 0, False, query, query.warnings)

    terms = query.positive_terms
    scored = []
    for r in rows:
        mid, session_rowid, ts, kind, role, length, *tfs = r
        score = relevance(length, tfs)
        if kind == TEXT and role in ("user", "assistant"):
            score *= 1.3  # what people typed and agents wrote beats tool lines
        scored.append((round(score, 1), ts or 0.0, mid, session_rowid))
    scored.sort(reverse=True)
    if one_per_session:
        seen: set[int] = set()
        unique = []
        for item in scored:
            if item[3] not in seen:
                seen.add(item[3])
                unique.append(item)
        scored = unique
    page = scored[offset : offset + limit]
    by_id = {r["id"]: r for r in fetch_messages(conn, [item[2] for item in page])}
    sessions = sessions_by_rowid(conn, {item[3] for item in page})
    hits = []
    for score, _, mid, session_rowid in page:
        message = message_from_row(by_id[mid])
        snippet, spans = make_snippet(message.text, terms)
        before, after = fetch_context(conn, message, context, context) if context else ((), ())
        hits.append(Hit(message, sessions[session_rowid], snippet, tuple(spans), score, before, after))
    return SearchResult(hits, len(scored), capped, query, query.warnings)

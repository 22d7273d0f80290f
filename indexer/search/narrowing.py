"""Filters that name few sessions narrow a search before the full-text index is read.

``project:x since:<last week>`` keeps a small share of a big index. Walking the newest matches
of a common word and dropping the ones outside that share grows with the index (0.3 s at 1 GB);
asking the FTS index for its matches inside the id ranges of the sessions the filters allow
does not. The ranges hold every message of those sessions (a superset: the filters are still
applied to each row), so results are the same either way.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

# Past this many sessions, one FTS request per range costs more than the plain newest-first
# walk, which then finds its matches soon anyway (the filters keep a big share).
MAX_SESSIONS = 400


def session_id_ranges(conn: sqlite3.Connection, session_where: list[str], session_params: list,
                      since: float | None, until: float | None) -> list[tuple[int, int]] | None:
    """Disjoint message-id ranges, newest first, covering every message of every session the
    filters allow; ``None`` when the filters name no sessions or too many to pay."""
    where, params = list(session_where), list(session_params)
    # A session's start_ts and end_ts are the min and max of its messages' ts (ingest.writer).
    if since is not None:
        where.append("(s.end_ts IS NULL OR s.end_ts >= ?)")
        params.append(since)
    if until is not None:
        where.append("(s.start_ts IS NULL OR s.start_ts < ?)")
        params.append(until)
    if not where:
        return None
    sessions = [r[0] for r in conn.execute(
        f"SELECT s.id FROM sessions s WHERE {' AND '.join(where)} LIMIT ?", [*params, MAX_SESSIONS + 1])]
    if len(sessions) > MAX_SESSIONS:
        return None
    spans = []
    for i in range(0, len(sessions), 500):
        chunk = sessions[i : i + 500]
        spans += conn.execute(
            f"SELECT min(id), max(id) FROM messages WHERE session_rowid IN ({','.join('?' * len(chunk))})"
            " GROUP BY session_rowid", chunk).fetchall()
    return merged_newest_first([(lo, hi) for lo, hi in spans if lo is not None])


def merged_newest_first(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching ranges joined, the highest first."""
    merged: list[list[int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return [(lo, hi) for lo, hi in reversed(merged)]


def ranges_with_matches(conn: sqlite3.Connection, table: str | None, match: str | None,
                        ranges: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The ranges (cut at their newest match) that hold a match of ``match`` in the FTS
    ``table`` (``None``: no index, every range is read).

    FTS5 bounds a rowid range only on the rows it returns: a range without a match of a rare
    phrase reads on to the phrase's next match below it. So the next match is asked for once,
    and the ranges above it skipped: all the probes together read the term's matches once."""
    if table is None:
        yield from ranges
        return
    probe = f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid <= ? ORDER BY rowid DESC LIMIT 1"
    i, top = 0, ranges[0][1] if ranges else 0
    while i < len(ranges):
        row = conn.execute(probe, (match, top)).fetchone()
        if row is None:
            return
        while i < len(ranges) and ranges[i][0] > row[0]:
            i += 1  # entirely above the next match: nothing in it
        if i == len(ranges):
            return
        low, high = ranges[i]
        if row[0] <= high:
            yield low, row[0]
            i += 1
            top = ranges[i][1] if i < len(ranges) else 0
        else:
            top = high  # the match is in the gap above this range

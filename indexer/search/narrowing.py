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
    # A session's start_ts and end_ts are the min and max of its messages' ts (ingest.writer);
    # a session without either has no message a time filter keeps. A time filter reads the
    # sessions through its index: the planner would read every session of the agent instead.
    indexed_by = ""
    if since is not None:
        where.append("s.end_ts >= ?")
        params.append(since)
        indexed_by = " INDEXED BY sessions_by_end"
    if until is not None:
        where.append("s.start_ts < ?")
        params.append(until)
        indexed_by = indexed_by or " INDEXED BY sessions_by_start"
    if not where:
        return None
    sessions = [r[0] for r in conn.execute(
        f"SELECT s.id FROM sessions s{indexed_by} WHERE {' AND '.join(where)} LIMIT ?", [*params, MAX_SESSIONS + 1])]
    if len(sessions) > MAX_SESSIONS:
        return None
    return merged_newest_first(list(session_bounds(conn, sessions).values()))


def session_bounds(conn: sqlite3.Connection, session_rowids: list[int]) -> dict[int, tuple[int, int]]:
    """Each session's lowest and highest message id, by two index seeks on (session, ordinal):
    a message's ordinal and id are both the highest of its session when it is stored
    (``indexer.ingest.writer``). ``min(id) ... GROUP BY session`` reads every message of every
    session instead (10 ms for the 307 sessions of a week at 1 GB, against 1.3 ms). One
    statement asks 500 sessions: one each cost ~10 µs more a session (3.2 ms for that week)."""
    found = {}
    for i in range(0, len(session_rowids), 500):
        chunk = session_rowids[i : i + 500]
        for s, lo, hi in conn.execute(
            "SELECT s.id, (SELECT id FROM messages WHERE session_rowid = s.id ORDER BY ordinal LIMIT 1),"
            " (SELECT id FROM messages WHERE session_rowid = s.id ORDER BY ordinal DESC LIMIT 1)"
            f" FROM sessions s WHERE s.id IN ({','.join('?' * len(chunk))})", chunk):
            if lo is not None:
                found[s] = (min(lo, hi), max(lo, hi))
    return {s: found[s] for s in session_rowids if s in found}  # in the order asked: the caller's


def merged_newest_first(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching ranges joined, the highest first."""
    merged: list[list[int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return [(lo, hi) for lo, hi in reversed(merged)]


class RangeWalk:
    """The ranges to read for one source, newest first, each cut at its newest match.

    FTS5 bounds a rowid range only on the rows it returns: a range without a match of a rare
    phrase reads on to the phrase's next match below it. So while ranges come back empty the
    next match is asked for first (``probe``) and the ranges above it are skipped: the probes
    together read the term's matches once. While they hold matches (a common word) each is read
    straight away: a probe would cost as much as the read. Tell it after each range whether it
    held rows (``found``). ``table`` None: no index, every range is read."""

    def __init__(self, conn: sqlite3.Connection, table: str | None, match: str | None,
                 ranges: list[tuple[int, int]]):
        self.conn, self.table, self.match, self.ranges = conn, table, match, ranges
        self.dense = table is None

    def found(self, any_rows: bool) -> None:
        self.dense = self.table is None or any_rows

    def _probe(self, top: int) -> int | None:
        t = self.table
        row = self.conn.execute(f"SELECT rowid FROM {t} WHERE {t} MATCH ? AND rowid <= ? ORDER BY rowid DESC LIMIT 1",
                                (self.match, top)).fetchone()
        return row[0] if row else None

    def __iter__(self) -> Iterator[tuple[int, int]]:
        ranges, i = self.ranges, 0
        while i < len(ranges):
            low, high = ranges[i]
            if not self.dense:
                newest = self._probe(high)
                if newest is None:
                    return
                while i < len(ranges) and ranges[i][0] > newest:
                    i += 1  # entirely above the next match: nothing in it
                if i == len(ranges):
                    return
                low, high = ranges[i]
                if newest > high:
                    continue  # the match is in the gap above this range: probe again from its top
                high = newest
            i += 1
            yield low, high

"""The messages a whole-document log keeps when it is read again.

A log written as one JSON document (Gemini's chats, opencode, Amp) is rewritten whole at every
turn, so each run reads it whole. Its messages were all removed and stored again under new ids:
a 2,000-message session cost 0.6-0.75 s a turn, every message's vector was made again, and the
side file (whose entries of removed messages stay, ``indexer.ingest.side``) took 2,000 more
entries of each index a turn. Now its stored messages, in order, are compared with the ones
parsed: the longest run from the start whose stored form is the same (role, kind, tool, time,
text or its reference, arguments, whether and what is searched, CJK, dedup key, mark) is kept as
it is, ids and all; only what follows is removed and stored again.

How: the writer reads a fingerprint of each stored message into the log's job
(``stored_prints``); the parsing, in the helper process or inline, counts the messages that
match (``kept_count``) and writes side-file entries for the rest alone; the writer removes and
inserts from there. A reference into the log is kept only where the new document holds the same
bytes at the same place (it is part of the stored form), so it still reads back.
"""

from __future__ import annotations

import hashlib
import sqlite3

from indexer.store.rows import MessageRow
from indexer.store.side_file import IN_MAIN, IN_OUTPUT, IN_SIDE

PRINT_BYTES = 16


def _print(role, kind, tool_name, ts, text, detail, searched: bool, has_cjk: bool, dedup, mark, excerpt) -> bytes:
    form = repr((role, kind, tool_name, ts, text, detail, searched, has_cjk, dedup, mark, excerpt))
    return hashlib.blake2b(form.encode("utf-8", "surrogatepass"), digest_size=PRINT_BYTES).digest()


def stored_prints(conn: sqlite3.Connection, file_id: int) -> bytes:
    """The fingerprints of a log's stored messages in order, one after another."""
    rows = conn.execute(
        "SELECT m.role, m.kind, m.tool_name, m.ts, m.text, m.detail, m.indexed, m.has_cjk, m.dedup, m.mark, e.text"
        " FROM messages m LEFT JOIN output_excerpts e ON e.id = m.id WHERE m.file_id = ? ORDER BY m.ordinal",
        (file_id,),
    )
    return b"".join(_print(r[0], r[1], r[2], r[3], r[4], r[5], r[6] in (IN_MAIN, IN_SIDE), bool(r[7]), r[8], r[9],
                           r[10] if r[6] == IN_OUTPUT else None) for r in rows)


def kept_count(rows: list[MessageRow], prints: bytes) -> int:
    """How many of ``rows``, from the first, are stored as they are (``prints``)."""
    kept = 0
    for row, at in zip(rows, range(0, len(prints), PRINT_BYTES)):
        if _print(row.role, row.kind, row.tool_name, row.ts, row.text, row.detail, bool(row.indexed), bool(row.has_cjk),
                  row.dedup, row.mark, row.excerpt or None) != prints[at:at + PRINT_BYTES]:
            break
        kept += 1
    return kept

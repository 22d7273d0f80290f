"""Storage rows by name: what ingest hands the writer, what the files table holds, and how
rows of the index become ``Session`` and ``Message`` objects."""

from __future__ import annotations

import sqlite3

from indexer.models import Message, Session, TokenUsage
from indexer.util.named_record import NamedTuple
from indexer.store.packing import LOG_REF_MAGIC, unpack

TYPE_CHECKING = False
if TYPE_CHECKING:  # a search loads no typing
    from typing import TypeGuard


class MessageRow(NamedTuple):
    """One message ready to insert, with the CPU work (packing, hashing) already done.

    Made in the helper process on a big run and pickled to the writer: a named tuple keeps
    that as cheap as a bare one."""

    role: str
    kind: str
    tool_name: str | None
    ts: float | None
    text: str | bytes  # as stored: indexed text as it is, other text packed (see packing)
    detail: str | bytes | None
    indexed: bool
    has_cjk: bool  # it has CJK bigrams (the side file's cjk2 table holds them)
    dedup: int  # 64-bit digest of the parser's dedup key
    mark: str | None = None  # e.g. "abandoned branch", "retracted": shown, see Message.mark
    fts_text: str | None = None  # the folded text when it differs (indexer.text.fold): what the indexes get
    excerpt: str | None = None  # tool output's searchable lines (indexer.text.output_excerpt), as written


class FileRow(NamedTuple):
    """A log file as the index last saw it: where reading stopped and how to tell it changed."""

    id: int
    path: str
    agent: str
    size: int
    mtime_ns: int
    inode: int
    offset: int
    head_hash: str | None
    tail_hash: str | None
    parser_state: str | None
    session_rowid: int | None
    missing: int


MESSAGE_COLUMNS = "id, session_rowid, file_id, ordinal, role, kind, tool_name, ts, text, detail, indexed, mark"


def fetch_messages(conn: sqlite3.Connection, ids: list[int]) -> list[sqlite3.Row]:
    rows: list[sqlite3.Row] = []
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        rows.extend(conn.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id IN ({','.join('?' * len(chunk))})", chunk
        ))
    return rows


def message_from_row(r: sqlite3.Row, conn: sqlite3.Connection | None = None, *, read_logs: bool = True) -> Message:
    """``conn``: the index the row came from, which holds the dictionary packed text names.
    ``read_logs`` False (a search hit: the search path never loads the archive) leaves out
    arguments kept in the log: ``detail`` is None, the message read again has them."""
    left_in_log = not read_logs and _is_log_ref(r["detail"])
    detail = None if left_in_log else stored_text(r["detail"], conn, r["file_id"])
    return _message(r, stored_text(r["text"], conn, r["file_id"]), detail)


def messages_from_rows(rows: list[sqlite3.Row], conn: sqlite3.Connection | None) -> list[Message]:
    """``message_from_row`` for each row, the tool output and arguments kept as references read
    together: each log looked up and opened once for a transcript, not once per output."""
    refs = [(i, column) for i, r in enumerate(rows) for column in ("text", "detail") if _is_log_ref(r[column])]
    read: dict[tuple[int, str], str] = {}
    if refs:
        from indexer.store.log_ref_reader import read_log_refs

        values = [(rows[i][column], rows[i]["file_id"]) for i, column in refs]
        read = dict(zip(refs, read_log_refs(values, conn)))

    def stored(i: int, column: str) -> str | None:
        return read[i, column] if (i, column) in read else unpack(rows[i][column], conn)

    return [_message(r, stored(i, "text"), stored(i, "detail")) for i, r in enumerate(rows)]


def _message(r: sqlite3.Row, text: str | None, detail: str | None) -> Message:
    return Message(
        id=r["id"],
        session_rowid=r["session_rowid"],
        ordinal=r["ordinal"],
        role=r["role"],
        kind=r["kind"],
        tool_name=r["tool_name"],
        ts=r["ts"],
        text=text if text is not None else "",
        detail=detail,
        indexed=bool(r["indexed"]),
        mark=r["mark"],
    )


def _is_log_ref(value: object) -> TypeGuard[bytes]:
    return isinstance(value, bytes) and value[:4] == LOG_REF_MAGIC


def stored_text(value: str | bytes | None, conn: sqlite3.Connection | None, file_id: int | None) -> str | None:
    """A message's text as stored: as it is, unpacked, or read from its log where the index
    keeps a reference (``indexer.store.log_ref``; the reader is loaded by the first one)."""
    if _is_log_ref(value):
        from indexer.store.log_ref_reader import read_log_ref

        return read_log_ref(value, file_id, conn)
    return unpack(value, conn)


_PARENT_NOT_INDEXED = (
    "NOT EXISTS (SELECT 1 FROM sessions p WHERE p.agent = s.agent AND p.session_id = s.parent_session_id)"
)
# A session listed at the top: no parent, or a parent the index does not hold (its log was never
# found, or was empty): an orphan is shown, marked, rather than lost from every list.
TOP_LEVEL = f"(s.parent_session_id IS NULL OR {_PARENT_NOT_INDEXED})"

SESSION_COLUMNS = (
    "s.id, s.agent, s.session_id, s.parent_session_id, s.source_path, s.project_path,"
    " s.project_name, s.git_branch, s.model, s.title, s.start_ts, s.end_ts, s.message_count,"
    " s.branched_from, s.resume_cwd,"
    " s.input_tokens, s.output_tokens, s.cache_write_tokens, s.cache_read_tokens,"
    " (SELECT max(f.mtime_ns) FROM files f WHERE f.session_rowid = s.id) AS log_mtime_ns,"
    " coalesce((SELECT min(f.missing) FROM files f WHERE f.session_rowid = s.id), 0) AS missing,"
    " coalesce((SELECT min(f.archived) FROM files f WHERE f.session_rowid = s.id), 0) AS archived,"
    f" (s.parent_session_id IS NOT NULL AND {_PARENT_NOT_INDEXED}) AS parent_missing"
)


def session_from_row(r: sqlite3.Row) -> Session:
    return Session(
        id=r["id"],
        agent=r["agent"],
        session_id=r["session_id"],
        parent_session_id=r["parent_session_id"],
        source_path=r["source_path"],
        project_path=r["project_path"],
        project_name=r["project_name"],
        git_branch=r["git_branch"],
        model=r["model"],
        title=r["title"],
        start_ts=r["start_ts"],
        end_ts=r["end_ts"],
        message_count=r["message_count"],
        source_missing=bool(r["missing"]),
        branched_from=r["branched_from"],
        resume_cwd=r["resume_cwd"],
        parent_missing=bool(r["parent_missing"]),
        tokens=_tokens_of(r),
        log_mtime=r["log_mtime_ns"] / 1e9 if r["log_mtime_ns"] else None,
        archived=bool(r["archived"]),
    )


def _tokens_of(r: sqlite3.Row) -> TokenUsage | None:
    if r["input_tokens"] is None:
        return None  # not counted: the log carries no usage, or was indexed before version 7
    return TokenUsage(r["input_tokens"], r["output_tokens"] or 0, r["cache_write_tokens"] or 0,
                      r["cache_read_tokens"] or 0)


def sessions_by_rowid(conn: sqlite3.Connection, rowids: set[int]) -> dict[int, Session]:
    if not rowids:
        return {}
    ids = list(rowids)
    rows = conn.execute(
        f"SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id IN ({','.join('?' * len(ids))})", ids
    )
    return {r["id"]: session_from_row(r) for r in rows}


def fetch_context(conn: sqlite3.Connection, message: Message, before: int, after: int) -> tuple[tuple[Message, ...], tuple[Message, ...]]:
    """The ``before`` messages preceding and ``after`` following ``message`` in its session."""
    rows = conn.execute(
        f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_rowid = ? AND ordinal BETWEEN ? AND ?"
        " ORDER BY ordinal",
        (message.session_rowid, message.ordinal - before, message.ordinal + after),
    ).fetchall()
    msgs = messages_from_rows(rows, conn)
    return (
        tuple(m for m in msgs if m.ordinal < message.ordinal),
        tuple(m for m in msgs if m.ordinal > message.ordinal),
    )

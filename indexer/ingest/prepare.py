"""Parsing what is new in one log file into rows: no database, so it runs in the helper
process on big runs (``indexer.ingest.helper``) and inline on small ones. What is new, and
whether the earlier bytes are as they were, is read by ``indexer.ingest.log_read``.
"""

from __future__ import annotations

import functools
import hashlib
import json
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from indexer.archive import ArchiveOutcome, start_archiving
from indexer.ingest.args_refs import args_reference_for
from indexer.ingest.job_list import FileJob
from indexer.ingest.log_read import NewBytes, read_new_bytes, read_whole
from indexer.ingest.log_refs import reference_for
from indexer.ingest.sanitise import sanitise_message, sanitise_meta
from indexer.ingest.side import SideWriter
from indexer.models import TOOL_CALL, TOOL_RESULT
from indexer.sources import PARSERS
from indexer.sources.base import ParseOutput, ParsedMessage, SessionMeta
from indexer.sources.token_usage import needs_token_reread, start_counting, usage_of
from indexer.sources.touched_files import touches_in
from indexer.store.rows import MessageRow
from indexer.store.packing import PACK_MIN_CHARS, pack, pack_detail
from indexer.store.side_file import cjk_bigrams
from indexer.text.fold import index_form
from indexer.text.output_excerpt import output_excerpt



def dedup_digest(key: str) -> int:
    """A 64-bit key: an integer index is cheaper to keep than a blob one (collisions at
    ten million messages: about one in 300,000)."""
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big", signed=True)


@dataclass
class PreparedFile:
    """One file read and parsed, each message ready to insert: the writer only writes."""

    job: FileJob
    append: bool = False
    start: int = 0
    consumed: int = 0
    bytes_read: int = 0
    state: dict = field(default_factory=dict)
    meta: SessionMeta = field(default_factory=SessionMeta)
    rows: list[MessageRow] = field(default_factory=list)
    grams: list[str] = field(default_factory=list)  # each row's CJK bigrams, until the side file has them
    first_id: int = 0  # message id of rows[kept]; the rows from there take consecutive ids
    text_in_side: bool = False  # the side file's trigram table holds this file's text
    side_committed: bool = False  # the side file is committed up to this file
    head_hash: str = ""
    tail_hash: str = ""
    problem: str | None = None  # could not read or parse: nothing else is set
    first_line: int = 1  # the line reading started at, for ``path:line: reason``
    bad_lines: str | None = None
    archived: bool = False  # the archive holds the file up to ``consumed``
    touches: list[tuple[str, str, float | None, int]] = field(default_factory=list)  # files its tool calls touched
    archive_problem: str | None = None
    kept: int = 0  # its first rows are stored as they are: a whole document read again (indexer.ingest.kept_rows)

    def __getstate__(self) -> dict:
        """Rows as plain tuples for the pipe to the writer: a named tuple pickles through a
        Python method and unpickles through its Python ``__new__``, one call a row each way.
        Plain, 64,912 rows of the generated tree pickled in 0.074 s against 0.132 and came back
        in 0.072 against 0.097 (row types made again included)."""
        state = self.__dict__.copy()
        state["rows"] = list(map(tuple, self.rows))
        return state

    def __setstate__(self, state: dict) -> None:
        state["rows"] = list(map(_as_message_row, state["rows"]))
        self.__dict__.update(state)


_as_message_row = functools.partial(tuple.__new__, MessageRow)  # in C, unlike MessageRow._make


def message_row(m: ParsedMessage, log: LogBytes | None = None, call_line: str | None = None) -> tuple[MessageRow, str]:
    """The row the writer inserts and the message's CJK bigrams (for the side file), with the
    CPU work (folding, bigrams, packing, hashing) already done. ``log``: the bytes it was
    parsed from, when the archive keeps them (tool output and a tool call's arguments are
    then references into them); ``call_line``: the call a tool output answers."""
    excerpt = output_excerpt(m.text, m.tool_name, call_line) if m.kind == TOOL_RESULT and not m.indexed else ""
    searched = m.text if m.indexed else excerpt
    folded = index_form(searched) if searched else None  # Traditional → Simplified, for the indexes
    grams = cjk_bigrams(folded or searched) if searched else ""
    row = MessageRow(m.role, m.kind, m.tool_name, m.ts, m.text if m.indexed else _stored_output(m, log),
                     _stored_detail(m, log), m.indexed, bool(grams), dedup_digest(m.dedup), m.mark,
                     folded, excerpt or None)
    return row, grams


@dataclass(frozen=True)
class LogBytes:
    """What a parser read, and where in the log it starts."""

    data: bytes
    offset: int


def _stored_output(m: ParsedMessage, log: LogBytes | None) -> str | bytes:
    """Text nobody searches, as stored: a reference into its log where the archive keeps the
    log and the reference rebuilds the text exactly (``indexer.ingest.log_refs``), else packed."""
    if log is not None and m.span is not None and len(m.text) >= PACK_MIN_CHARS:
        ref = reference_for(m.text, log.data, m.span, log.offset)
        if ref is not None:
            return ref
    return pack(m.text) or ""  # pack gives None only for no text


def _stored_detail(m: ParsedMessage, log: LogBytes | None) -> str | bytes | None:
    """A tool call's arguments, as stored: like tool output (``_stored_output``), a reference
    into the log where one rebuilds them exactly (``indexer.ingest.args_refs``), else packed."""
    detail = m.detail
    if log is not None and m.kind == TOOL_CALL and m.span is not None and detail and len(detail) >= PACK_MIN_CHARS:
        ref = args_reference_for(detail, log.data, m.span, log.offset)
        if ref is not None:
            return ref
    return pack_detail(detail)


def prepare_file(job: FileJob, now: float, *, from_start: bool = False) -> PreparedFile:
    """Read what is new in a file and parse it. No database: runs in a helper process on big runs.
    ``from_start``: read the whole file even if it only grew."""
    row = job.row
    out = PreparedFile(job)
    stored_session = job.meta.session_id if job.meta is not None else None  # the parse names it again
    previous_state: dict = json.loads(row.parser_state) if row and row.parser_state else {}
    read = _read_log(out, previous_state, now, from_start=from_start)
    if read is None:
        return out
    if out.append and needs_token_reread(previous_state):
        return prepare_file(job, now, from_start=True)  # indexed before tokens were counted
    parsed = _parse(out, read, previous_state)
    if parsed.restart and out.append:
        # The new lines change what earlier ones mean (a Pi branch switch, a retraction).
        return prepare_file(job, now, from_start=True)
    _note_file_facts(out, read, parsed)
    _add_rows(out, read, parsed.messages)
    out.kept = _kept_rows(out, stored_session)
    return out


def _read_log(out: PreparedFile, previous_state: dict, now: float, *, from_start: bool) -> NewBytes | None:
    """What is new in the log, where it starts and its hashes noted in ``out``; None, with
    ``out.problem`` set, when the file cannot be read: that is the file's problem, not the run's."""
    job = out.job
    whole = read_whole(job.agent, job.path, previous_state)
    try:
        read = read_new_bytes(job.path, job.size, job.mtime, job.inode, job.row, whole=whole,
                              from_start=from_start or job.from_start, now=now)
    except FileNotFoundError:
        out.problem = f"{job.key}: vanished before it could be read"
        return None
    except OSError as exc:
        out.problem = f"{job.key}: cannot read ({exc.strerror or exc})"
        return None
    out.append, out.head_hash, out.tail_hash = read.append, read.head_hash, read.tail_hash
    out.start, out.consumed, out.bytes_read = read.start, read.consumed, len(read.data)
    return read


def _note_file_facts(out: PreparedFile, read: NewBytes, parsed: ParseOutput) -> None:
    """What the index keeps of the file besides its messages: lines read, lines skipped, tokens
    used, files touched, and the session's details made safe to store."""
    out.state["_lines"] = out.first_line - 1 + (read.complete.count(b"\n") if not read.whole else 0)
    out.bad_lines = _bad_lines_note(out.job.key, parsed)
    out.meta.tokens = usage_of(out.state)
    out.touches = touches_in(parsed.messages, out.meta.project_path)
    sanitise_meta(out.meta)


def _add_rows(out: PreparedFile, read: NewBytes, messages: list[ParsedMessage]) -> None:
    """Each message as the row the writer inserts, with its CJK bigrams: one tight loop, as it
    runs for every message of every log."""
    log = LogBytes(read.complete, read.start) if out.archived else None
    call_line = None  # the last tool call's one-line form: what printed the output that follows
    for m in messages:
        sanitise_message(m)
        if m.kind == TOOL_CALL:
            call_line = m.text
        stored, grams = message_row(m, log, call_line)
        out.rows.append(stored)
        out.grams.append(grams)


def _kept_rows(out: PreparedFile, stored_session: str | None) -> int:
    """How many of the first rows the index already holds as they are: only a whole document of
    the same session, read again, keeps any (``indexer.ingest.kept_rows``)."""
    job = out.job
    if job.kept_prints and not out.append and out.meta.session_id == stored_session:
        from indexer.ingest.kept_rows import kept_count

        return kept_count(out.rows, job.kept_prints)
    return 0


def _parse(out: PreparedFile, read: NewBytes, previous_state: dict) -> ParseOutput:
    """Parse the complete part of what was read, from the parser state the index kept when
    appending (a fresh one otherwise), while the read bytes are added to the archive."""
    job = out.job
    state: dict = previous_state if out.append else {}
    if not out.append:
        start_counting(state)
    if read.whole:
        state["_whole"] = True
    out.first_line = int(state.get("_lines", 0)) + 1 if out.append else 1
    meta = job.meta if job.meta is not None else SessionMeta()
    if not out.append:
        meta.session_id = None  # let the parser name it from the file again
    out.state, out.meta = state, meta
    archiving = _start_archive_copy(out, memoryview(read.data)[: read.consumed - read.start])
    parsed = PARSERS[job.agent].parse(Path(job.path), read.complete, out.first_line, state, meta)
    _finish_archive_copy(out, archiving)
    return parsed


def _bad_lines_note(shown: str, parsed: ParseOutput) -> str | None:
    """What the run reports of lines it could not read as they were: not JSON, not UTF-8."""
    note = None
    if parsed.bad_lines:
        where = f" (first at line {parsed.first_bad_line})" if parsed.first_bad_line else ""
        note = f"{shown}: {parsed.bad_lines} line(s) are not valid JSON and were skipped{where}"
    if parsed.non_utf8_lines:
        utf8 = (f"{shown}:{parsed.first_non_utf8_line}: {parsed.non_utf8_lines} line(s) hold bytes that are"
                " not UTF-8; read with replacement characters")
        note = f"{note}\n{utf8}" if note else utf8
    return note


def _start_archive_copy(out: PreparedFile, read: memoryview) -> Future[ArchiveOutcome] | None:
    """The bytes just read, added to the file's archived copy (``indexer.archive``) on a
    thread while they are parsed here."""
    job = out.job
    if not job.archive_root:
        return None
    archiving = start_archiving(Path(job.archive_root), job.key, job.path, out.start, read)
    if archiving.done():  # a hard link, made here: its change time is kept even if parsing fails
        _keep_link_ctime(job, archiving.result())
    return archiving


def _finish_archive_copy(out: PreparedFile, archiving: Future[ArchiveOutcome] | None) -> None:
    if archiving is not None:
        outcome = archiving.result()
        out.archived, out.archive_problem = outcome.archived, outcome.problem
        _keep_link_ctime(out.job, outcome)


def _keep_link_ctime(job: FileJob, outcome: ArchiveOutcome) -> None:
    """A new hard link moved the log's change time: the index stores that one, or its next run
    would take the log for rewritten and read it again."""
    if outcome.ctime_ns is not None:
        job.ctime_ns = outcome.ctime_ns


def prepare_safely(job: FileJob, now: float) -> PreparedFile:
    """``prepare_file``, with anything it raises turned into that file's problem: one file
    never stops a run (the file is skipped until it changes, see ``indexer.ingest.writer``)."""
    try:
        return prepare_file(job, now)
    except Exception as exc:  # noqa: BLE001 - whatever one file does, the run goes on
        first_line = int(_previous_lines(job)) + 1
        out = PreparedFile(job, first_line=first_line)
        out.problem = f"{job.key}:{first_line}: cannot be read ({type(exc).__name__}: {exc})"
        return out


def _previous_lines(job: FileJob) -> int:
    try:
        return int(json.loads(job.row.parser_state).get("_lines", 0)) if job.row and job.row.parser_state else 0
    except (ValueError, TypeError, AttributeError):
        return 0


def prepare_with_side(writer: SideWriter, job: FileJob, now: float, *, take_text: bool) -> PreparedFile:
    """``prepare_safely``, then ids and side-file entries for its rows; with ``take_text`` the
    side file's trigram table takes the file's text, sparing the main writer."""
    prepared = prepare_safely(job, now)
    prepared.first_id, prepared.side_committed = writer.add(
        prepared.rows, prepared.grams, prepared.bytes_read, take_text=take_text, skip=prepared.kept
    )
    prepared.text_in_side = take_text
    prepared.grams = []  # in the side file now; the writer needs only each row's has_cjk
    return prepared


def for_the_writer(prepared: PreparedFile) -> PreparedFile:
    """``prepared`` without the folded text only the side file needed: the writer indexes a
    row's folded text (``fts_text``) only when the row is indexed and its file's text is not in
    the side file. The helper drops it before pickling: the generated 1 GB tree's Chinese text
    is mostly folded (Traditional to Simplified), and its pickled files were 17% smaller."""
    if any(row.fts_text is not None for row in prepared.rows):
        side = prepared.text_in_side
        prepared.rows = [row._replace(fts_text=None) if row.fts_text is not None and (side or not row.indexed) else row
                         for row in prepared.rows]
    return prepared

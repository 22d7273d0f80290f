"""Discovery and incremental indexing: read only what is new, survive anything a log holds.

Per file we keep the byte offset of the last complete line, plus hashes of the file's head
and of the bytes just before that offset. A file that grew with both hashes intact is read
from the offset; anything else (rewritten in place, shrunk, replaced) is indexed again from
scratch. A file that disappears keeps its rows: agents prune old transcripts, we do not.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from indexer.side_index import IN_MAIN, IN_SIDE, SideWriter, cjk_bigrams, ensure_paired, next_message_id
from indexer.config import SourceRoots
from indexer.db import IndexError_
from indexer.packing import pack
from indexer.prepare_helper import HelperProcess
from indexer.sources import PARSERS, is_whole_document
from indexer.sources.base import ParsedMessage, SessionMeta, load_whole_json, project_name_of

HASH_SPAN = 1024
STALE_PARTIAL_SECONDS = 600  # a last line without "\n" this old is taken as finished
WRITER_CACHE_KIB = 128 * 1024
PARALLEL_MIN_BYTES = 32 * 1024 * 1024  # below this a helper process costs more than it saves


class IndexBusyError(IndexError_):
    def __init__(self, lock_path: Path, holder: str):
        super().__init__(
            f"another Threadback index run is updating this index ({holder}); "
            "searches still work; try `threadback index` again when it has finished"
        )
        self.lock_path = lock_path


@dataclass
class IndexProgress:
    files_total: int = 0
    files_done: int = 0
    bytes_total: int = 0
    bytes_done: int = 0
    sessions_touched: int = 0
    messages_added: int = 0
    current: str = ""
    started: float = field(default_factory=time.monotonic)

    @property
    def fraction(self) -> float:
        if self.bytes_total:
            return min(1.0, self.bytes_done / self.bytes_total)
        return 1.0 if not self.files_total else self.files_done / self.files_total

    @property
    def eta_seconds(self) -> float | None:
        elapsed = time.monotonic() - self.started
        if self.bytes_done <= 0 or elapsed < 0.5:
            return None
        return elapsed * (self.bytes_total - self.bytes_done) / self.bytes_done


@dataclass
class IndexSummary:
    files_seen: int = 0
    files_new: int = 0
    files_appended: int = 0
    files_reindexed: int = 0
    files_missing: int = 0
    sessions_touched: int = 0
    messages_added: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    stopped: bool = False

    @property
    def files_changed(self) -> int:
        return self.files_new + self.files_appended + self.files_reindexed


ProgressCallback = Callable[[IndexProgress], None]


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _dedup_digest(key: str) -> int:
    """A 64-bit key: an integer index is cheaper to keep than a blob one (collisions at
    ten million messages: about one in 300,000)."""
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big", signed=True)


class IndexLock:
    """An advisory lock file beside the index: one writer at a time, readers never wait."""

    def __init__(self, db_path: Path):
        self.path = Path(str(db_path) + ".lock")
        self._fh = None

    def __enter__(self) -> "IndexLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            fh.seek(0)
            holder = fh.read().strip() or "unknown process"
            fh.close()
            raise IndexBusyError(self.path, holder) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        self._fh = fh
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fh:
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def discover(roots: SourceRoots, problems: list[str]) -> Iterator[tuple[str, str, os.stat_result]]:
    """Yield (agent, path, stat) for every log file under the roots; errors are collected."""
    seen: set[str] = set()
    for agent, paths in roots.items():
        module = PARSERS[agent]
        for root in paths:
            if not root.exists():
                continue
            stack = [str(root)]
            while stack:
                folder = stack.pop()
                try:
                    entries = list(os.scandir(folder))
                except OSError as exc:
                    problems.append(f"{folder}: cannot list folder ({exc.strerror or exc})")
                    continue
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                            continue
                        if not entry.is_file() or not module.is_log_file(entry.name):
                            continue
                        st = entry.stat()
                    except OSError as exc:
                        problems.append(f"{entry.path}: cannot stat ({exc.strerror or exc})")
                        continue
                    if entry.path in seen:
                        continue
                    seen.add(entry.path)
                    yield agent, entry.path, st


@dataclass
class _FileRow:
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


@dataclass
class FileJob:
    """What reading one file needs: where it is, what it looked like, what we knew of it."""

    agent: str
    path: str
    size: int
    mtime: float
    mtime_ns: int
    inode: int
    row: _FileRow | None
    meta: SessionMeta  # the session as indexed so far (empty for a new file)


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
    rows: list[tuple] = field(default_factory=list)  # see _message_row
    first_id: int = 0  # message id of rows[0]; the rows take consecutive ids
    text_in_side: bool = False  # the side file's trigram table holds this file's text
    side_committed: bool = False  # the side file is committed up to this file
    head_hash: str = ""
    tail_hash: str = ""
    problem: str | None = None  # could not read: nothing else is set
    bad_lines: str | None = None


def is_one_json_document(data: bytes) -> bool:
    """A pretty-printed JSON document (Codex's first format, or a log saved by hand) rather
    than one JSON value per line. The one place this is decided, for every agent."""
    first = data.split(b"\n", 1)[0].strip()
    if first in (b"{", b"["):
        return True
    if not first.startswith((b"{", b"[")) or b"\n" not in data.strip():
        return False
    # Line 1 opens a value it does not close, and the whole file is one value.
    return load_whole_json(first) is None and load_whole_json(data) is not None


def _message_row(m: ParsedMessage) -> tuple:
    """(role, kind, tool, ts, stored text, stored detail, indexed, grams, dedup, mark): what the
    writer needs, with the CPU work (bigrams, packing, hashing) already done."""
    grams = cjk_bigrams(m.text) if m.indexed else ""
    return (m.role, m.kind, m.tool_name, m.ts, m.text if m.indexed else pack(m.text), pack(m.detail),
            m.indexed, grams, _dedup_digest(m.dedup), m.mark)


def prepare_file(job: FileJob, now: float, *, from_start: bool = False) -> PreparedFile:
    """Read what is new in a file and parse it. No database: runs in a helper process on big runs.
    ``from_start``: read the whole file even if it only grew."""
    row, path = job.row, job.path
    p = Path(path)
    out = PreparedFile(job)
    previous_state: dict = json.loads(row.parser_state) if row and row.parser_state else {}
    whole = is_whole_document(job.agent, p) or bool(previous_state.get("_whole"))
    try:
        with open(path, "rb") as fh:
            head = fh.read(HASH_SPAN)
            if row and not whole and not from_start and row.offset > 0 and job.size >= row.offset and row.inode == job.inode:
                if _hash(head[: min(HASH_SPAN, row.offset)]) == row.head_hash:
                    fh.seek(max(0, row.offset - HASH_SPAN))
                    before = fh.read(row.offset - max(0, row.offset - HASH_SPAN))
                    out.append = _hash(before) == row.tail_hash
            start = row.offset if out.append else 0
            fh.seek(start)
            data = fh.read(max(0, job.size - start))
            if start == 0 and not whole and is_one_json_document(data):
                whole = True  # a pretty-printed JSON document: read it whole, every time
            if whole:
                complete, consumed = data, start + len(data)
            else:
                cut = data.rfind(b"\n") + 1
                partial = data[cut:]
                writer_gone = now - job.mtime > STALE_PARTIAL_SECONDS
                if partial.strip() and writer_gone and load_whole_json(partial) is not None:
                    # The writer is long gone and its last line is complete JSON: take it.
                    complete, consumed = data + b"\n", start + len(data)
                else:
                    complete, consumed = data[:cut], start + cut
            # Hashes of the file as it stands up to `consumed`, to recognise it next time.
            fh.seek(max(0, consumed - HASH_SPAN))
            out.tail_hash = _hash(fh.read(consumed - max(0, consumed - HASH_SPAN)))
            out.head_hash = _hash(head[: min(HASH_SPAN, consumed)])
    except FileNotFoundError:
        out.problem = f"{path}: vanished before it could be read"
        return out
    except OSError as exc:
        out.problem = f"{path}: cannot read ({exc.strerror or exc})"
        return out
    out.start, out.consumed, out.bytes_read = start, consumed, len(data)

    state: dict = previous_state if out.append else {}
    if whole:
        state["_whole"] = True
    first_line_no = int(state.get("_lines", 0)) + 1 if out.append else 1
    meta = job.meta
    if not out.append:
        meta.session_id = None  # let the parser name it from the file again
    parsed = PARSERS[job.agent].parse(p, complete, first_line_no, state, meta)
    if parsed.restart and out.append:
        # The new lines change what earlier ones mean (a Pi branch switch, a retraction).
        return prepare_file(job, now, from_start=True)
    state["_lines"] = first_line_no - 1 + (complete.count(b"\n") if not whole else 0)
    if parsed.bad_lines:
        where = f" (first at line {parsed.first_bad_line})" if parsed.first_bad_line else ""
        out.bad_lines = f"{path}: {parsed.bad_lines} line(s) are not valid JSON and were skipped{where}"
    out.state, out.meta = state, meta
    out.rows = [_message_row(m) for m in parsed.messages]
    return out


class Ingester:
    """One index run over a connection. Not thread-safe; one per run."""

    def __init__(self, conn: sqlite3.Connection, db_path: Path, now: float | None = None):
        self.conn = conn
        self.db_path = Path(db_path)
        self.now = now if now is not None else time.time()
        self.summary = IndexSummary()
        self._next_ordinal: dict[int, int] = {}

    # -- the run ---------------------------------------------------------------
    def run(
        self,
        roots: SourceRoots,
        progress: ProgressCallback | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> IndexSummary:
        started = time.monotonic()
        conn = self.conn
        # Only what the stat comparison needs: a no-change run must stay cheap at 50k files.
        known: dict[str, tuple] = {
            r[0]: r[1:]
            for r in conn.execute("SELECT path, id, size, mtime_ns, inode, missing FROM files").fetchall()
        }
        found = list(discover(roots, self.summary.problems))
        self.summary.files_seen = len(found)
        work = []
        for agent, path, st in found:
            seen = known.get(path)
            if seen and seen[1:] == (st.st_size, st.st_mtime_ns, st.st_ino, 0):
                continue
            work.append((agent, path, st, self._file_row(seen[0]) if seen else None))
        # Newest first: the sessions people look for are mostly recent ones.
        work.sort(key=lambda w: w[2].st_mtime_ns, reverse=True)
        prog = IndexProgress(files_total=len(work), bytes_total=sum(max(0, w[2].st_size - (w[3].offset if w[3] else 0)) for w in work))
        if progress:
            progress(prog)

        def announce(step: str) -> None:
            prog.current = step
            if progress:
                progress(prog)

        ensure_paired(conn, announce)
        touched: set[int] = set()
        jobs = [self._job(agent, path, st, row) for agent, path, st, row in work]
        stream = PreparedStream(
            jobs, self.now, self.db_path, next_message_id(conn), parallel=prog.bytes_total >= PARALLEL_MIN_BYTES
        )
        try:
            # Deferred, not IMMEDIATE: IMMEDIATE would also lock the attached side file, which
            # the helper process writes. The index lock already keeps other writers out.
            conn.execute("BEGIN")
            self._write_all(stream, roots, known, found, prog, touched, progress, should_stop)
        finally:
            stream.close()
        if progress:
            progress(prog)
        self.summary.sessions_touched = len(touched)
        self.summary.seconds = time.monotonic() - started
        return self.summary

    def _write_all(
        self,
        stream: "PreparedStream",
        roots: SourceRoots,
        known: dict[str, tuple],
        found: list,
        prog: IndexProgress,
        touched: set[int],
        progress: ProgressCallback | None,
        should_stop: Callable[[], bool] | None,
    ) -> None:
        """Store every prepared file, committing where the side file has; all or nothing of
        the last batch on an error."""
        conn = self.conn
        try:
            for prepared in stream:
                if should_stop and should_stop():
                    self.summary.stopped = True
                    break
                job = prepared.job
                prog.current = job.path
                self._store(prepared, touched)
                prog.files_done += 1
                prog.bytes_done += max(0, job.size - (job.row.offset if job.row else 0))
                prog.sessions_touched = len(touched)
                prog.messages_added = self.summary.messages_added
                if prepared.side_committed:
                    # Every file stored so far is covered in the side file: commit ours.
                    conn.execute("COMMIT")
                    conn.execute("BEGIN")
                    if progress:
                        progress(prog)
            stream.commit_side()
            if not self.summary.stopped:
                self._mark_missing(roots, known, {p for _, p, _ in found})
            conn.execute(
                "INSERT INTO meta(key, value) VALUES('last_indexed', ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(self.now),),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _file_row(self, file_id: int) -> _FileRow:
        r = self.conn.execute(
            "SELECT id, path, agent, size, mtime_ns, inode, offset, head_hash, tail_hash,"
            " parser_state, session_rowid, missing FROM files WHERE id = ?",
            (file_id,),
        ).fetchone()
        return _FileRow(*r)

    def _mark_missing(self, roots: SourceRoots, known: dict[str, tuple], present: set[str]) -> None:
        root_prefixes = tuple(str(p).rstrip("/") + "/" for p in roots.all_paths())
        for path, (file_id, _size, _mtime, _inode, missing) in known.items():
            if path in present or missing or not path.startswith(root_prefixes):
                continue
            self.conn.execute("UPDATE files SET missing = 1 WHERE id = ?", (file_id,))
            self.summary.files_missing += 1

    # -- one file --------------------------------------------------------------
    def _job(self, agent: str, path: str, st: os.stat_result, row: _FileRow | None) -> FileJob:
        meta = SessionMeta()
        if row and row.session_rowid is not None:
            self._load_meta(row.session_rowid, meta)
        return FileJob(agent, path, st.st_size, st.st_mtime, st.st_mtime_ns, st.st_ino, row, meta)

    def _store(self, prepared: PreparedFile, touched: set[int]) -> None:
        """Write one prepared file: replace or extend its rows, update its session and file."""
        job, row = prepared.job, prepared.job.row
        if prepared.problem:
            self.summary.problems.append(prepared.problem)
            return
        self.summary.bytes_read += prepared.bytes_read
        if prepared.bad_lines:
            self.summary.problems.append(prepared.bad_lines)
        removed = 0
        if row and not prepared.append:
            removed = self._remove_file_rows(row)
            self.summary.files_reindexed += 1
        elif row:
            self.summary.files_appended += 1
        else:
            self.summary.files_new += 1
        meta = prepared.meta
        session_rowid = row.session_rowid if row else None
        if meta.session_id and (prepared.rows or session_rowid is not None):
            session_rowid = self._upsert_session(job.agent, job.path, meta, session_rowid)
            file_id = self._upsert_file(prepared, session_rowid)
            added = self._insert_messages(session_rowid, file_id, prepared)
            self._refresh_session_counts(session_rowid)
            touched.add(session_rowid)
            self.summary.messages_added += added
        else:
            self._upsert_file(prepared, session_rowid)
            added = 0
        if added != removed:
            # Kept in meta so the status line need not count a million rows (see Index.stats).
            self.conn.execute(
                "UPDATE meta SET value = value + ? WHERE key = 'message_count'", (added - removed,)
            )

    def _load_meta(self, session_rowid: int, meta: SessionMeta) -> None:
        r = self.conn.execute("SELECT * FROM sessions WHERE id = ?", (session_rowid,)).fetchone()
        if r is None:
            return
        meta.session_id = r["session_id"]
        meta.parent_session_id = r["parent_session_id"]
        meta.branched_from = r["branched_from"]
        meta.project_path = r["project_path"]
        meta.resume_cwd = r["resume_cwd"]
        meta.git_branch = r["git_branch"]
        meta.model = r["model"]
        meta.title = r["title"]
        meta.title_rank = r["title_rank"]

    def _upsert_session(self, agent: str, path: str, meta: SessionMeta, rowid: int | None) -> int:
        conn = self.conn
        existing = conn.execute(
            "SELECT id, title_rank, project_path FROM sessions WHERE agent = ? AND session_id = ?",
            (agent, meta.session_id),
        ).fetchone()
        project_path = meta.project_path
        if not project_path and meta.parent_session_id:
            parent = conn.execute(
                "SELECT project_path FROM sessions WHERE agent = ? AND session_id = ?",
                (agent, meta.parent_session_id),
            ).fetchone()
            project_path = parent["project_path"] if parent else None
        values = (
            meta.parent_session_id,
            path,
            project_path,
            project_name_of(project_path),
            meta.git_branch or None,
            meta.model,
            meta.branched_from,
            meta.resume_cwd,
        )
        if existing is None:
            cur = conn.execute(
                "INSERT INTO sessions(agent, session_id, parent_session_id, source_path, project_path,"
                " project_name, git_branch, model, branched_from, resume_cwd, title, title_rank)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (agent, meta.session_id, *values, meta.title, meta.title_rank),
            )
            return int(cur.lastrowid)
        conn.execute(
            "UPDATE sessions SET parent_session_id = coalesce(?, parent_session_id), source_path = ?,"
            " project_path = coalesce(?, project_path), project_name = coalesce(?, project_name),"
            " git_branch = coalesce(?, git_branch), model = coalesce(?, model),"
            " branched_from = coalesce(?, branched_from), resume_cwd = coalesce(?, resume_cwd) WHERE id = ?",
            (*values, existing["id"]),
        )
        if meta.title and meta.title_rank >= existing["title_rank"]:
            conn.execute(
                "UPDATE sessions SET title = ?, title_rank = ? WHERE id = ?",
                (meta.title, meta.title_rank, existing["id"]),
            )
        return int(existing["id"])

    def _upsert_file(self, prepared: PreparedFile, session_rowid: int | None) -> int:
        job, row = prepared.job, prepared.job.row
        values = (
            job.agent,
            session_rowid,
            job.size,
            job.mtime_ns,
            job.inode,
            prepared.consumed,
            prepared.head_hash,
            prepared.tail_hash,
            json.dumps(prepared.state, ensure_ascii=False),
            self.now,
        )
        if row:
            self.conn.execute(
                "UPDATE files SET agent=?, session_rowid=?, size=?, mtime_ns=?, inode=?, offset=?,"
                " head_hash=?, tail_hash=?, parser_state=?, indexed_at=?, missing=0 WHERE id=?",
                (*values, row.id),
            )
            return row.id
        cur = self.conn.execute(
            "INSERT INTO files(path, agent, session_rowid, size, mtime_ns, inode, offset, head_hash,"
            " tail_hash, parser_state, indexed_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (job.path, *values),
        )
        return int(cur.lastrowid)

    def _insert_messages(self, session_rowid: int, file_id: int, prepared: PreparedFile) -> int:
        conn = self.conn
        ordinal = self._next_ordinal.get(session_rowid)
        if ordinal is None:
            ordinal = conn.execute(
                "SELECT coalesce(max(ordinal) + 1, 0) FROM messages WHERE session_rowid = ?",
                (session_rowid,),
            ).fetchone()[0]
        added = 0
        insert = (
            "INSERT OR IGNORE INTO messages(id, session_rowid, file_id, ordinal, role, kind, tool_name,"
            " ts, text, detail, indexed, has_cjk, dedup, mark) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        )
        where = IN_SIDE if prepared.text_in_side else IN_MAIN
        for rowid, (role, kind, tool, ts, text, detail, indexed, has_cjk, dedup, mark) in enumerate(prepared.rows, prepared.first_id):
            cur = conn.execute(
                insert,
                (rowid, session_rowid, file_id, ordinal, role, kind, tool, ts, text, detail,
                 where if indexed else 0, int(has_cjk), dedup, mark),
            )
            if cur.rowcount != 1:
                continue  # already indexed from another copy of this message
            ordinal += 1
            added += 1
            if indexed and where == IN_MAIN:
                conn.execute("INSERT INTO fts(rowid, text) VALUES (?, ?)", (rowid, text))
        self._next_ordinal[session_rowid] = ordinal
        return added

    def _remove_file_rows(self, row: _FileRow) -> int:
        """Drop a file's messages by rowid: never scan the whole FTS table. Their entries in
        the side file stay behind, unreachable (see ``indexer.side_index``)."""
        conn = self.conn
        for r in conn.execute(
            "SELECT id, text FROM messages WHERE file_id = ? AND indexed = ?", (row.id, IN_MAIN)
        ).fetchall():
            conn.execute("INSERT INTO fts(fts, rowid, text) VALUES ('delete', ?, ?)", (r["id"], r["text"]))
        removed = conn.execute("DELETE FROM messages WHERE file_id = ?", (row.id,)).rowcount
        if row.session_rowid is not None:
            self._next_ordinal.pop(row.session_rowid, None)
        return removed

    def _refresh_session_counts(self, session_rowid: int) -> None:
        self.conn.execute(
            "UPDATE sessions SET (message_count, start_ts, end_ts) ="
            " (SELECT count(*), min(ts), max(ts) FROM messages WHERE session_rowid = ?) WHERE id = ?",
            (session_rowid, session_rowid),
        )


class PreparedStream:
    """The jobs prepared in order, each with message ids and its side-file entries written.

    On a big run a helper process (``indexer.prepare_helper``) reads, parses and writes the
    side file, including the text of the files it has time for, while this one writes
    messages and the main trigram table.
    """

    def __init__(self, jobs: list[FileJob], now: float, db_path: Path, next_id: int, *, parallel: bool):
        self.jobs, self.now = jobs, now
        self._helper: HelperProcess | None = None
        self._inline: SideWriter | None = None
        if not jobs:
            pass  # nothing to prepare: a no-change run opens nothing
        elif parallel and len(jobs) >= 2:
            self._helper = HelperProcess(db_path, next_id)
        else:
            self._inline = SideWriter(db_path, next_id)

    def __iter__(self) -> Iterator[PreparedFile]:
        if self._inline is not None:
            for job in self.jobs:
                yield prepare_with_side(self._inline, job, self.now, take_text=False)
        helper = self._helper
        if helper is None:
            return
        helper.prepare_all(self.jobs, self.now)
        for _ in self.jobs:
            yield helper.receive()

    def commit_side(self) -> None:
        """Commit the side entries of every file yielded so far (and of any still in flight)."""
        if self._inline is not None:
            self._inline.commit()
        if self._helper is not None:
            self._helper.commit()

    def close(self) -> None:
        if self._inline is not None:
            self._inline.close()
        if self._helper is not None:
            self._helper.close()


def prepare_with_side(writer: SideWriter, job: FileJob, now: float, *, take_text: bool) -> PreparedFile:
    """``prepare_file``, then ids and side-file entries for its rows; with ``take_text`` the
    side file's trigram table takes the file's text, sparing the main writer."""
    prepared = prepare_file(job, now)
    prepared.first_id, prepared.side_committed = writer.add(prepared.rows, prepared.bytes_read, take_text=take_text)
    prepared.text_in_side = take_text
    # The writer needs only whether a row had bigrams: do not ship the bigrams back.
    prepared.rows = [(*r[:7], bool(r[7]), *r[8:]) for r in prepared.rows]
    return prepared


def update_index(
    conn: sqlite3.Connection,
    db_path: Path,
    roots: SourceRoots,
    *,
    progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
    now: float | None = None,
) -> IndexSummary:
    """Bring the index up to date with the logs under ``roots`` (one writer at a time)."""
    with IndexLock(db_path):
        # The dedup index takes random keys: a bigger page cache saves ~20% of a cold build.
        conn.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
        return Ingester(conn, db_path, now=now).run(roots, progress, should_stop)

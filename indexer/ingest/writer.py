"""The only writer of the main index file: stores prepared files, keeps sessions and files current.

A file that disappears keeps its rows: agents prune old transcripts, we do not. A file that
cannot be stored costs that file only (``indexer.ingest.failures``).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from indexer.config import SourceRoots
from indexer.sources import PARSERS
from indexer.ingest import failures
from indexer.upkeep.archive_backfill import backfill_archive
from indexer.ingest.discover import discover, discover_paths, project_log_files, resolved_roots
from indexer.ingest.log_read import indexed_bytes_unchanged, read_whole
from indexer.ingest.job_list import JobList
from indexer.util.id_set import IdSet
from indexer.ingest.progress import IndexProgress, IndexSummary, ProgressCallback
from indexer.upkeep.refold import refold_index
from indexer.ingest.sanitise import storable_path
from indexer.ingest.session_rows import load_meta, store_tokens, upsert_session
from indexer.ingest.side import ensure_paired
from indexer.ingest.stream import PreparedStream
from indexer.sources.base import SessionMeta
from indexer.text.storable import storable
from indexer.store.dedup_keys import DedupKeys, ensure_table
from indexer.store.fts_merge import use_write_settings
from indexer.store.rows import FileRow
from indexer.store.side_file import IN_MAIN, IN_OUTPUT, IN_SIDE, next_message_id
from indexer.text.fold import index_form

if TYPE_CHECKING:
    from indexer.ingest.prepare import PreparedFile


# Sessions whose next message number is kept between their files (a session's subagent logs,
# appends); one per session of a build held 5 MB at 126,000 logs, and a number not kept is one
# indexed lookup.
ORDINALS_KEPT = 4096
CONFIRMED_AT_ONCE = 500  # logs whose change time moved, checked against their hashes per query
# Stored messages' prints held for whole-document logs to read again, at most (16 bytes each:
# half a million messages). Past it a log's messages are all stored again, as they once all were:
# a run that reads every log again (a parser's upgrade) must not hold them all (120 MB a process).
PRINTS_HELD_BYTES = 8 * 1024 * 1024


class Ingester:
    """One index run over a connection. Not thread-safe; one per run."""

    def __init__(self, conn: sqlite3.Connection, db_path: Path, now: float | None = None, *, one_process: bool = False,
                 archive_dir: Path | None = None, alongside: Callable[[int], None] | None = None):
        """``alongside``: told the bytes a full run is about to read, before it reads them (what
        works beside the reading starts there: ``indexer.vectors.follow``)."""
        self.conn = conn
        self.alongside = alongside
        self.archive_dir = archive_dir  # where log copies are kept (indexer.archive); None: off
        self._archive_root = str(archive_dir) if archive_dir else ""  # one string every job shares
        self.one_process = one_process  # no helper process (after one died)
        self.db_path = Path(db_path)
        self.now = now if now is not None else time.time()
        self.summary = IndexSummary()
        self._gone: list[str] = []  # logs marked missing this run: their archived links are sealed
        self._next_ordinal: dict[int, int] = {}
        # Trigram index changes are written just before each commit, outside the per-file
        # savepoints: FTS5 writes a segment at every savepoint it takes part in, which would
        # cost a segment per file (see ``_flush_fts``).
        self._fts_adds: list[tuple[int, str]] = []
        self._fts_drops: list[tuple[int, str]] = []
        self._file_fts_adds: list[tuple[int, str]] = []
        self._file_fts_drops: list[tuple[int, str]] = []
        # Messages added less removed since the last commit (``meta.message_count``), written
        # with the trigram changes: a statement a file was ~8 us of a log's ~300 at 50,000 logs.
        self._count_change = 0
        self._file_count_change = 0
        self._keys = DedupKeys()  # written sorted before each commit, with the trigram changes
        self._failing: set[str] = set()  # logs that failed before this run: a stored one is cleared
        self._prints_held = 0  # bytes of ``kept_rows`` prints in this run's jobs

    # -- the run ---------------------------------------------------------------
    def _with_store_mirrors(self, roots: SourceRoots) -> SourceRoots:
        """Each agent's roots, plus the mirror folders of an agent that keeps a store of its own
        (its parser's optional ``with_store_mirrors``); mirrors live beside the index."""
        mirrors = self.db_path.parent / "mirrors"
        out = {}
        for agent, paths in roots.items():
            prepare = getattr(PARSERS[agent], "with_store_mirrors", None) if paths else None
            out[agent] = prepare(paths, mirrors, self.summary.problems) if prepare is not None else paths
        return SourceRoots(out)

    def run(
        self,
        roots: SourceRoots,
        progress: ProgressCallback | None = None,
        should_stop: Callable[[], bool] | None = None,
        only: list[str] | None = None,
    ) -> IndexSummary:
        """``only``: just these files (a live update), and no file is marked missing."""
        started = time.monotonic()
        conn = self.conn
        roots = resolved_roots(roots)
        if only is None:  # an agent's own store (opencode.db): its sessions mirrored as files first
            roots = self._with_store_mirrors(roots)
        failed = failures.load_failures(conn)
        listed: Iterable[tuple[str, str, os.stat_result]]
        if only is None:  # each file once, however it was reached (a root, a known project folder)
            reached: set[int] = set()
            listed = itertools.chain(discover(roots, self.summary.problems, reached),
                                     project_log_files(roots, self._project_folders(), self.summary.problems, reached))
        else:  # the few files a live update names: their rows are read by key
            listed = list(discover_paths(roots, only, self.summary.problems))
        known = self._known_files(None if only is None else [storable_path(path) for _, path, _ in listed])
        jobs, failed_gone = self._jobs_for(listed, known, failed)
        self._failing = set(failed)
        if only is None:
            reached.clear()  # each log's number, needed while finding them (~5 MB at 112,000 logs)
        # Newest first: the sessions people look for are mostly recent ones.
        jobs.sort_newest_first()
        prog = IndexProgress(files_total=len(jobs), bytes_total=jobs.bytes_to_read())
        if progress:
            progress(prog)

        def announce(step: str) -> None:
            prog.current = step
            if progress:
                progress(prog)

        ensure_paired(conn, announce)
        if not refold_index(conn, announce, should_stop):
            self.summary.stopped = True  # asked to stop while folding an older index
            return self.summary
        touched = IdSet()  # the sessions this run wrote to, counted once each
        if only is None and self.alongside is not None and jobs:
            self.alongside(prog.bytes_total)
        stream = PreparedStream(
            jobs, self.now, self.db_path, next_message_id(conn), bytes_total=prog.bytes_total,
            allow_helper=not self.one_process, conn=conn,
        )
        try:
            # Deferred, not IMMEDIATE: IMMEDIATE would also lock the attached side file, which
            # the helper process writes. The index lock already keeps other writers out.
            conn.execute("BEGIN")
            ensure_table(conn)
            use_write_settings(conn, prog.bytes_total)
            self._keys.start_filter(conn, prog.bytes_total)
            self._write_all(stream, roots, known if only is None else None, failed_gone, prog, touched, progress, should_stop)
        finally:
            stream.close()
        if self.archive_dir and not self.summary.stopped:
            if self._gone:  # the archive's code loads where it has work (~25 ms of a no-change run)
                from indexer.archive.seal import seal_links

                self.summary.problems += seal_links(self.archive_dir, self._gone)
            backfill_archive(conn, self.archive_dir, self.summary.problems, should_stop)
        if progress:
            progress(prog)
        self.summary.files_failing = failures.failing_count(conn)
        self.summary.sessions_touched = len(touched)
        self.summary.seconds = time.monotonic() - started
        return self.summary

    def _jobs_for(self, listed: Iterable[tuple[str, str, os.stat_result]], known: dict[str, tuple],
                  failed: dict[str, failures.StatKey]) -> tuple[JobList, set[str]]:
        """The files to read, and the failed files that are gone. Takes from ``known`` each file
        found: what it keeps are the indexed files this run did not find. A file whose inode
        changed with its bytes as they were is confirmed here, not read.

        Nothing is kept of a file that needs no reading, and of one that does only its compact
        job: 112,340 logs' stat results and tuples held ~100 MB of a 20 GB build's main process
        (issue 38: under 120 MB a process)."""
        files_seen = 0
        failed_present: set[str] = set()
        jobs = JobList(self._archive_root)
        ctime_moved: list[tuple[int, int, int]] = []  # (new change time, lone link, file id): bytes as they were
        to_confirm: list[tuple[str, str, str, os.stat_result, int, int]] = []  # hashes to check (the last: it was gone)
        for agent, path, st in listed:
            key = storable_path(path)  # the path itself unless it holds bytes that are not UTF-8
            files_seen += 1
            seen = known.pop(key, None)
            if key in failed:
                failed_present.add(key)
                if failed[key] == failures.stat_key(st):
                    continue  # failed as it is now: tried again when it changes
            if seen and (seen[1], seen[2], seen[4]) == (st.st_size, st.st_mtime_ns, st.st_ino):
                if not seen[5] and seen[3] == st.st_ctime_ns:
                    continue
                if not seen[5] and seen[3] == 0:  # indexed before inode change times were kept
                    ctime_moved.append((st.st_ctime_ns, int(st.st_nlink < 2), seen[0]))
                    continue
                # Its inode changed (a chmod, a hard link made and removed), or it is back where a
                # run found it gone (moved away and back, its folder away for a while): the bytes
                # the hashes cover are checked, a batch at a time.
                to_confirm.append((agent, path, key, st, seen[0], seen[5]))
                if len(to_confirm) >= CONFIRMED_AT_ONCE:
                    self._confirm_by_hashes(to_confirm, jobs, ctime_moved)
                    to_confirm = []
                continue
            jobs.add(agent, path, key, st, self._known_job(seen[0]) if seen else None)
        self._confirm_by_hashes(to_confirm, jobs, ctime_moved)
        self.summary.files_seen = files_seen
        if ctime_moved:
            # One transaction (a savepoint opens one here): outside one, each row was a commit of
            # its own, 138 us each, 6.9 s of the 11 s a run took after a chmod of 50,000 logs.
            self.conn.execute("SAVEPOINT confirmed")
            try:
                self.conn.executemany("UPDATE files SET ctime_ns = ?, archived = archived * (1 - ?), missing = 0 WHERE id = ?",
                                      ctime_moved if self.archive_dir else [(c, 0, i) for c, _, i in ctime_moved])
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK TO confirmed")
                    self.conn.execute("RELEASE confirmed")
                raise
            self.conn.execute("RELEASE confirmed")
            self.summary.files_confirmed = len(ctime_moved)
        return jobs, set(failed) - failed_present

    def _project_folders(self) -> list[str]:
        """The folders sessions were held in: where an agent that keeps its log inside the
        project (Aider) is looked for."""
        rows = self.conn.execute("SELECT DISTINCT project_path FROM sessions WHERE project_path LIKE '/%'").fetchall()
        return [r[0] for r in rows]

    def _known_files(self, keys: list[str] | None) -> dict[str, tuple]:
        """Only what the stat comparison needs: a no-change run must stay cheap at 50k files,
        and a live update (``keys``) reads the rows of its few files alone."""
        sql = "SELECT path, id, size, mtime_ns, ctime_ns, inode, missing FROM files"
        if keys is None:
            return {r[0]: r[1:] for r in self.conn.execute(sql).fetchall()}
        known: dict[str, tuple] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            rows = self.conn.execute(f"{sql} WHERE path IN ({','.join('?' * len(chunk))})", chunk).fetchall()
            known.update((r[0], r[1:]) for r in rows)
        return known

    def _write_all(
        self,
        stream: PreparedStream,
        roots: SourceRoots,
        not_found: dict[str, tuple] | None,
        failed_gone: set[str],
        prog: IndexProgress,
        touched: IdSet,
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
                prog.current = job.key
                self._store_one(prepared, touched)
                prog.files_done += 1
                prog.bytes_done += max(0, job.size - (job.row.offset if job.row else 0))
                prog.sessions_touched = len(touched)
                prog.messages_added = self.summary.messages_added
                if prepared.side_committed:
                    # Every file stored so far is covered in the side file: commit ours.
                    self._flush_fts()
                    conn.execute("COMMIT")
                    conn.execute("BEGIN")
                    if progress:
                        progress(prog)
            stream.commit_side()
            if not self.summary.stopped and not_found is not None:  # None: only some files were looked at
                self._mark_missing(roots, not_found)
                self._forget_gone_failures(failed_gone)
            conn.execute(
                "INSERT INTO meta(key, value) VALUES('last_indexed', ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(self.now),),
            )
            self._flush_fts()
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite may have rolled back itself (a full disk): keep its error
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise

    def _flush_fts(self) -> None:
        """The trigram index changes of every file stored since the last commit, at once, the
        message count's change and the new messages' dedup keys."""
        self._keys.flush(self.conn)
        if self._count_change:
            # Kept in meta so the status line need not count a million rows (see Index.stats).
            self.conn.execute("UPDATE meta SET value = value + ? WHERE key = 'message_count'", (self._count_change,))
            self._count_change = 0
        if self._fts_drops:
            self.conn.executemany("INSERT INTO fts(fts, rowid, text) VALUES ('delete', ?, ?)", self._fts_drops)
        if self._fts_adds:
            self.conn.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)", self._fts_adds)
        self._fts_adds, self._fts_drops = [], []

    def _confirm_by_hashes(self, logs: list[tuple[str, str, str, os.stat_result, int, int]], jobs: JobList,
                           ctime_moved: list[tuple[int, int, int]]) -> None:
        """Logs whose change time moved or that are back after a run found them gone, (agent,
        path, key, stat, file id, gone): one that still holds what was indexed (its head and the
        bytes before its offset against the hashes kept, 2 KB read) goes to ``ctime_moved``, one
        rewritten with its mtime put back to ``jobs``, to be read from its start. Their hashes
        come in one query (a query a log was 0.9 s of a run after a chmod of 50,000 logs)."""
        if not logs:
            return
        ids = [log[4] for log in logs]
        kept = {r[0]: r[1:] for r in self.conn.execute(
            f"SELECT id, offset, head_hash, tail_hash FROM files WHERE id IN ({','.join('?' * len(ids))})", ids)}
        for agent, path, key, st, file_id, gone in logs:
            if indexed_bytes_unchanged(path, *kept[file_id]):
                # A log with no other link may have lost its archived copy (the archive's hard
                # link removed): ``backfill_archive`` checks it, and links it again.
                ctime_moved.append((st.st_ctime_ns, int(st.st_nlink < 2), file_id))
                self.summary.files_returned += gone
            else:  # same size and mtime, other bytes: rewritten with its mtime put back
                jobs.add(agent, path, key, st, self._known_job(file_id), True)

    def _file_row(self, file_id: int) -> FileRow:
        r = self.conn.execute(
            "SELECT id, path, agent, size, mtime_ns, inode, offset, head_hash, tail_hash,"
            " parser_state, session_rowid, missing FROM files WHERE id = ?",
            (file_id,),
        ).fetchone()
        return FileRow(*r)

    def _mark_missing(self, roots: SourceRoots, not_found: dict[str, tuple]) -> None:
        """Mark the indexed files this run did not find under its roots as missing."""
        root_prefixes = tuple(storable_path(str(p)).rstrip("/") + "/" for p in roots.all_paths())
        for path, (file_id, _size, _mtime, _ctime, _inode, missing) in not_found.items():
            if missing or not path.startswith(root_prefixes):
                continue
            self.conn.execute("UPDATE files SET missing = 1 WHERE id = ?", (file_id,))
            self.summary.files_missing += 1
            self._gone.append(path)

    def _forget_gone_failures(self, gone: set[str]) -> None:
        """Forget the failures of files that failed before this run and are gone now."""
        for path in gone:
            failures.clear_failure(self.conn, path)

    # -- one file --------------------------------------------------------------
    def _known_job(self, file_id: int) -> tuple[FileRow, SessionMeta | None, bytes]:
        """A log indexed before: its row, its session as indexed so far, and for a log read as
        one document its stored messages' prints (what its re-read keeps, ``kept_rows``)."""
        row = self._file_row(file_id)
        meta = None
        if row.session_rowid is not None:
            meta = SessionMeta()
            load_meta(self.conn, row.session_rowid, meta)
        state = json.loads(row.parser_state) if row.parser_state else {}
        if self._prints_held >= PRINTS_HELD_BYTES or not read_whole(row.agent, row.path, state):
            return row, meta, b""
        from indexer.ingest.kept_rows import stored_prints  # hashlib: loaded where a log is read again

        prints = stored_prints(self.conn, row.id)
        self._prints_held += len(prints)
        return row, meta, prints

    def _store_one(self, prepared: PreparedFile, touched: IdSet) -> None:
        """Store one file inside a savepoint: what one file raises rolls back that file only,
        and the file is recorded as failing (see ``indexer.ingest.failures``)."""
        job = prepared.job
        stat = (job.size, job.mtime_ns, job.ctime_ns, job.inode)
        if prepared.problem and not prepared.problem.endswith("vanished before it could be read"):
            self.summary.problems.append(prepared.problem)
            reason = prepared.problem.split(": ", 1)[-1] if prepared.problem.startswith(job.key) else prepared.problem
            failures.record_failure(self.conn, job.agent, job.key, stat, prepared.first_line, reason, self.now)
            return
        before, problems_before = dataclasses.replace(self.summary), len(self.summary.problems)
        its_sessions: set[int] = set()
        self._file_fts_adds, self._file_fts_drops, self._file_count_change = [], [], 0
        self.conn.execute("SAVEPOINT one_file")
        try:
            self._store(prepared, its_sessions)
        except Exception as exc:
            if not failures.is_per_file(exc):
                raise
            self.conn.execute("ROLLBACK TO one_file")
            self.conn.execute("RELEASE one_file")
            self._keys.drop_file()
            del self.summary.problems[problems_before:]
            self.summary = dataclasses.replace(before, problems=self.summary.problems)  # its counts undone
            self._next_ordinal.clear()  # what it counted may have been rolled back
            reason = failures.reason_of(exc)
            self.summary.problems.append(f"{job.key}:{prepared.first_line}: {reason} (file skipped until it changes)")
            failures.record_failure(self.conn, job.agent, job.key, stat, prepared.first_line, reason, self.now)
            return
        self.conn.execute("RELEASE one_file")
        self._keys.keep_file()
        touched |= its_sessions
        self._fts_adds += self._file_fts_adds
        self._fts_drops += self._file_fts_drops
        self._count_change += self._file_count_change
        if job.key in self._failing:
            failures.clear_failure(self.conn, job.key)

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
            removed = self._remove_file_rows(row, keep=prepared.kept)
            del prepared.rows[:prepared.kept]  # stored as they are; ids were handed out from the next
            self.summary.files_reindexed += 1
        elif row:
            self.summary.files_appended += 1
        else:
            self.summary.files_new += 1
        meta = prepared.meta
        session_rowid = row.session_rowid if row else None
        if meta.session_id and (prepared.rows or session_rowid is not None):
            times = [r.ts for r in prepared.rows if r.ts is not None]
            counts = (len(prepared.rows), min(times, default=None), max(times, default=None))
            session_rowid, new_session = upsert_session(self.conn, job.agent, job.key, meta, counts)
            store_tokens(self.conn, session_rowid, meta)
            file_id = self._upsert_file(prepared, session_rowid)
            self._note_archive_problem(prepared)
            added = self._insert_messages(session_rowid, file_id, prepared)
            self._insert_touches(session_rowid, file_id, prepared)
            if not new_session or added != counts[0]:
                # Counted from its messages: other files' too, or copies of stored ones left out.
                # A new session whose rows all went in was counted on insert: the aggregate and
                # the update that moves its times in three indexes were ~35 us a log (50,068 small
                # logs: storing a log 263 -> 245 us of CPU).
                self._refresh_session_counts(session_rowid)
            touched.add(session_rowid)
            self.summary.messages_added += added
        else:
            self._upsert_file(prepared, session_rowid)
            self._note_archive_problem(prepared)
            added = 0
        self._file_count_change = added - removed  # written before the commit (``_flush_fts``)

    def _upsert_file(self, prepared: PreparedFile, session_rowid: int | None) -> int:
        """The log's row; with the archive on, whether it holds the log (the "archived copy
        only" mark) in the same statement."""
        job, row = prepared.job, prepared.job.row
        values: tuple = (
            job.agent,
            session_rowid,
            job.size,
            job.mtime_ns,
            job.ctime_ns,
            job.inode,
            prepared.consumed,
            prepared.head_hash,
            prepared.tail_hash,
            json.dumps(prepared.state),  # ASCII: a lone surrogate in the state is kept as an escape
            self.now,
        )
        if job.archive_root:
            values += (int(prepared.archived),)
        archived = ", archived" if job.archive_root else ""  # without the archive: as it was
        if row:
            self.conn.execute(
                "UPDATE files SET (agent, session_rowid, size, mtime_ns, ctime_ns, inode, offset, head_hash,"
                f" tail_hash, parser_state, indexed_at{archived}, missing) = ({', '.join('?' * len(values))}, 0)"
                " WHERE id = ?",
                (*values, row.id),
            )
            return row.id
        cur = self.conn.execute(
            "INSERT INTO files(agent, session_rowid, size, mtime_ns, ctime_ns, inode, offset, head_hash,"
            f" tail_hash, parser_state, indexed_at{archived}, path) VALUES ({', '.join('?' * len(values))}, ?)",
            (*values, job.key),
        )
        assert cur.lastrowid is not None  # an INSERT always sets it
        return cur.lastrowid

    def _insert_touches(self, session_rowid: int, file_id: int, prepared: PreparedFile) -> None:
        """The files its tool calls touched (``indexer.sources.touched_files``), for ``threadback files``."""
        if prepared.touches:
            self.conn.executemany(
                "INSERT INTO files_touched(session_rowid, file_id, path, name, kind, ts, calls) VALUES (?,?,?,?,?,?,?)",
                [(session_rowid, file_id, storable(path), storable(path.rsplit("/", 1)[-1]), kind, ts, calls)
                 for path, kind, ts, calls in prepared.touches])

    def _note_archive_problem(self, prepared: PreparedFile) -> None:
        """Why the archive could not keep this file (its mark is set with its row, ``_upsert_file``)."""
        if prepared.archive_problem:
            self.summary.problems.append(prepared.archive_problem)

    def _insert_messages(self, session_rowid: int, file_id: int, prepared: PreparedFile) -> int:
        conn = self.conn
        ordinal = self._next_ordinal.get(session_rowid)
        if ordinal is None:
            ordinal = conn.execute(
                "SELECT coalesce(max(ordinal) + 1, 0) FROM messages WHERE session_rowid = ?",
                (session_rowid,),
            ).fetchone()[0]
        where = IN_SIDE if prepared.text_in_side else IN_MAIN
        if len(self._next_ordinal) >= ORDINALS_KEPT:
            self._next_ordinal.clear()
        if self._insert_all(session_rowid, file_id, ordinal, where, prepared):
            self._next_ordinal[session_rowid] = ordinal + len(prepared.rows)
            return len(prepared.rows)
        added = 0
        insert = _INSERT_MESSAGE
        keys = self._keys
        for rowid, row in enumerate(prepared.rows, prepared.first_id):
            owner = keys.owner_session(conn, row.dedup)
            if owner is not None:
                if owner == session_rowid:
                    continue  # already indexed from another copy of this message, in this session
                self._store_copy(rowid, session_rowid, file_id, ordinal, row)
                ordinal += 1
                added += 1
                continue
            indexed = where if row.indexed else IN_OUTPUT if row.excerpt else 0
            cur = conn.execute(
                insert,
                (rowid, session_rowid, file_id, ordinal, row.role, row.kind, row.tool_name, row.ts, row.text,
                 row.detail, indexed, int(row.has_cjk), row.dedup, row.mark),
            )
            if cur.rowcount != 1:
                continue  # an index made before dedup_keys: its UNIQUE column holds the key (not expected)
            keys.add(row.dedup, rowid)
            if row.excerpt:
                conn.execute("INSERT INTO output_excerpts(id, text) VALUES (?, ?)", (rowid, row.excerpt))
            ordinal += 1
            added += 1
            if row.indexed and where == IN_MAIN and isinstance(row.text, str):  # indexed text is str
                self._file_fts_adds.append((rowid, row.fts_text or row.text))  # the folded text (indexer.text.fold)
        self._next_ordinal[session_rowid] = ordinal
        return added

    def _insert_all(self, session_rowid: int, file_id: int, ordinal: int, where: int, prepared: PreparedFile) -> bool:
        """The common case in one ``executemany``: every row is new. False, with nothing
        written, when any is not (a copy of a message already stored): the caller then goes
        row by row, as every row once did (a statement per row cost a fifth of this process's
        time on a cold build)."""
        rows = prepared.rows
        if not rows:
            return False
        conn = self.conn
        keys = [row.dedup for row in rows]
        if self._keys.any_known(conn, keys):
            return False
        values = [
            (rowid, session_rowid, file_id, ordinal + i, row.role, row.kind, row.tool_name, row.ts, row.text,
             row.detail, where if row.indexed else IN_OUTPUT if row.excerpt else 0, int(row.has_cjk), row.dedup,
             row.mark)
            for i, (rowid, row) in enumerate(enumerate(rows, prepared.first_id))
        ]
        if conn.executemany(_INSERT_MESSAGE, values).rowcount != len(values):
            # Undone by id rather than with a savepoint round every file (~25 us of a log's
            # ~300 at 50,000 logs): the ids are this file's own, handed out for it alone.
            conn.execute("DELETE FROM messages WHERE id BETWEEN ? AND ?", (prepared.first_id, prepared.first_id + len(rows) - 1))
            return False
        self._keys.add_all(keys, prepared.first_id)
        excerpts = [(rowid, row.excerpt) for rowid, row in enumerate(rows, prepared.first_id) if row.excerpt]
        if excerpts:
            conn.executemany("INSERT INTO output_excerpts(id, text) VALUES (?, ?)", excerpts)
        if where == IN_MAIN:  # indexed text is str; fts holds the folded text (indexer.text.fold)
            self._file_fts_adds += [(rowid, row.fts_text or row.text) for rowid, row in enumerate(rows, prepared.first_id)
                                    if row.indexed and isinstance(row.text, str)]
        return True

    def _store_copy(self, rowid: int, session_rowid: int, file_id: int, ordinal: int, row) -> None:
        """A message another session holds already (a resumed or forked session copies its
        history with the same ids): stored again in this session, so its transcript is whole,
        but not indexed and without its key, so search counts it once."""
        self.conn.execute(
            "INSERT INTO messages(id, session_rowid, file_id, ordinal, role, kind, tool_name, ts, text, detail,"
            " indexed, has_cjk, dedup, mark) VALUES (?,?,?,?,?,?,?,?,?,?,0,?,NULL,?)",
            (rowid, session_rowid, file_id, ordinal, row.role, row.kind, row.tool_name, row.ts, row.text, row.detail,
             int(row.has_cjk), row.mark),
        )

    def _remove_file_rows(self, row: FileRow, keep: int = 0) -> int:
        """Drop a file's messages by rowid, all but its first ``keep`` (``indexer.ingest.kept_rows``):
        never scan the whole FTS table. Their entries in the side file stay behind, unreachable
        (see ``indexer.ingest.side``)."""
        conn = self.conn
        first_dropped = 0  # the ordinal messages are dropped from
        if keep:
            at = conn.execute("SELECT ordinal FROM messages WHERE file_id = ? ORDER BY ordinal LIMIT 1 OFFSET ?",
                              (row.id, keep)).fetchone()
            first_dropped = at[0] if at else 1 << 62  # all of them kept
        for r in conn.execute(
            "SELECT id, text FROM messages WHERE file_id = ? AND indexed = ? AND ordinal >= ?", (row.id, IN_MAIN, first_dropped)
        ).fetchall():
            # fts holds the folded text (indexer.text.fold): delete exactly what was inserted.
            self._file_fts_drops.append((r["id"], index_form(r["text"]) or r["text"]))
        conn.execute("DELETE FROM output_excerpts WHERE id IN"
                     " (SELECT id FROM messages WHERE file_id = ? AND indexed = ? AND ordinal >= ?)",
                     (row.id, IN_OUTPUT, first_dropped))
        self._keys.drop_rows(conn, row.id, first_dropped)
        removed = conn.execute("DELETE FROM messages WHERE file_id = ? AND ordinal >= ?", (row.id, first_dropped)).rowcount
        conn.execute("DELETE FROM files_touched WHERE file_id = ?", (row.id,))
        if row.session_rowid is not None:
            self._next_ordinal.pop(row.session_rowid, None)
        return removed

    def _refresh_session_counts(self, session_rowid: int) -> None:
        self.conn.execute(
            "UPDATE sessions SET (message_count, start_ts, end_ts) ="
            " (SELECT count(*), min(ts), max(ts) FROM messages WHERE session_rowid = ?) WHERE id = ?",
            (session_rowid, session_rowid),
        )


_INSERT_MESSAGE = (
    "INSERT OR IGNORE INTO messages(id, session_rowid, file_id, ordinal, role, kind, tool_name,"
    " ts, text, detail, indexed, has_cjk, dedup, mark) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)

"""The helper process of a big index run: reads and parses logs and writes the side file.

Started as ``python -m indexer.ingest.helper DB NEXT_ID [DICTIONARY_ID]`` rather than through
multiprocessing: fork must not copy SQLite's state from a parent that has the same files
open (nor run from the app's indexing thread), and multiprocessing's spawn re-runs the
caller's main script, which a library cannot ask of its callers.

The protocol is pickled tuples over the pipes, in order: ``("prepare", job, now, take_text)``
gets a ``PreparedFile``; ``("side", entries, size)`` (a file the parent prepared itself,
``indexer.ingest.side.side_entries``) gets ``(first id, committed)``; ``("commit",)`` gets
``"committed"``; a failure gets ``("error", text)``.
Each side drains its incoming pipe with a thread as things arrive: a pipe holds 64 KB, about
one prepared file or a hundred requests, and a side blocked on a full pipe stops working
(the helper could not work ahead while the writer commits; the writer could not write while
it queued requests). The parent bounds what is outstanding instead.
"""

from __future__ import annotations

import os
import pickle
import queue
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import deque
from pathlib import Path
from typing import Any, BinaryIO, Iterator

from indexer.ingest.prepare import PreparedFile, for_the_writer, prepare_safely, prepare_with_side
from indexer.ingest.side import SideWriter, side_entries
from indexer.store.errors import HelperError

_FRAME = struct.Struct("<Q")
_EOF = object()
QUEUED_AT_HELPER = 3  # jobs sent and not yet prepared: enough to never idle, few to steer by
PREFETCH_BYTES = 64 * 1024 * 1024  # log bytes prepared ahead of the writer, at most
# And prepared files waiting for the writer, in bytes as they came: a small log's file is bigger
# prepared than read (its job, rows and state), so 64 MB of 1.5 KB logs held 43,000 replies and
# 75 MB of a build's main process (126,000 small logs; issue 38: under 120 MB a process).
REPLIES_AHEAD_BYTES = 8 * 1024 * 1024
# A parent that would wait for the helper prepares the next file itself (the helper, parsing,
# was the slower side: the writer waited 15 s of a 1 GB build's 46 s of reading). Log bytes it
# has prepared and the writer has not taken, at most: it may prepare several while the helper
# parses a big one, and a prepared file is held as objects, not pickled bytes. The main process
# peaked at 117 MB at 20x with this bound, 119 MB without, 105 MB when it prepared nothing
# (issue 38: under 120 MB a process); 1 MB kept no less and left the writer waiting again.
PREPARED_HERE_BYTES = 4 * 1024 * 1024
# How much text the helper takes into the side trigram table is steered by how long the writer
# waits for prepared files: the writer's work per file grows with the index, the helper's not.
SHARE_START = 0.25  # fraction of files whose text the helper takes, at first
SHARE_MAX = 0.9
SHARE_STEP = 0.05
SHARE_WINDOW_SECONDS = 1.0
WRITER_IDLE_LOW, WRITER_IDLE_HIGH = 0.02, 0.10  # below: give the helper more; above: less


class TextSharing:
    """Decides which files' text the helper indexes, from how long the writer waits for files.

    A writer that hardly waits is the slower side: the helper takes a bigger share of the
    text. One that waits a lot gets less, the helper being the slower side then.
    """

    def __init__(self, now: float, share: float = SHARE_START):
        self.share = share
        self._credit = 0.0
        self._window_start, self._window_wait = now, 0.0

    def take_text(self) -> bool:
        """Whether the helper takes the next file's text: ``share`` of the files, spread evenly."""
        self._credit += self.share
        if self._credit >= 1.0:
            self._credit -= 1.0
            return True
        return False

    def writer_waited(self, seconds: float, now: float) -> None:
        """The writer took a file after waiting ``seconds`` for it."""
        self._window_wait += seconds
        elapsed = now - self._window_start
        if elapsed < SHARE_WINDOW_SECONDS:
            return
        idle = self._window_wait / elapsed
        if idle < WRITER_IDLE_LOW:
            self.share = min(SHARE_MAX, self.share + SHARE_STEP)
        elif idle > WRITER_IDLE_HIGH:
            self.share = max(0.0, self.share - SHARE_STEP)
        self._window_start, self._window_wait = now, 0.0


class HelperProcess:
    """The parent's handle on one helper: feeds it jobs and hands their results over in the
    order they were sent; while none has arrived the parent prepares the next job itself.

    Feeding runs from both parent threads (when a reply arrives, and when the writer takes
    one), so the helper always has a few jobs queued without the writer's help, while what it
    prepared ahead stays within ``PREFETCH_BYTES``.
    """

    def __init__(self, db_path: Path, next_id: int, dictionary_id: int = 0):
        """``dictionary_id``: the packing dictionary to pack with (``indexer.upkeep.pack_training``)."""
        package_root = str(Path(__file__).resolve().parents[2])  # the folder holding ``indexer``: this code, not an installed copy
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        # Its stderr goes to a file: on a terminal app it would scribble over the screen.
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            # -P: no current folder first on its path, or ``-m`` would run an ``indexer`` found
            # there (a checkout the app was started in) instead of this code.
            [sys.executable, "-P", "-m", "indexer.ingest.helper", str(db_path), str(next_id), str(dictionary_id)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
        )
        self._lock = threading.Lock()  # guards the pipe to the helper and the counters below
        self._jobs: Iterator = iter(())  # each job is made when it is sent (indexer.ingest.job_list)
        self._next_job: Any = None
        self._now = 0.0
        # Per request whose reply the writer has not taken: (its job's size or None, and the
        # file itself when the parent prepared it, ``_prepare_here``).
        self._sent: deque[tuple[int | None, PreparedFile | None]] = deque()
        self._unanswered = 0  # requests whose reply has not even arrived
        self.prepared_here = 0  # files the parent prepared itself
        self._here_bytes = 0  # their log bytes not yet taken by the writer
        self._ahead_bytes = 0  # log bytes sent and not yet taken by the writer
        self._replied_bytes = 0  # replies arrived and not yet taken by the writer
        self.sharing = TextSharing(time.monotonic())
        self._replies: queue.SimpleQueue = queue.SimpleQueue()
        self._reader = threading.Thread(target=self._drain, name="index-helper-replies", daemon=True)
        self._reader.start()

    def prepare_all(self, jobs: Iterator, now: float) -> None:
        """Queue jobs; ``receive`` returns their ``PreparedFile``s, nearly in the same order: a
        job the parent prepares itself comes after the few already sent (a session in two
        logs next to each other may then take them in the other order)."""
        with self._lock:
            self._jobs, self._next_job = jobs, next(jobs, None)
            self._now = now
        self._feed()

    def _feed(self) -> None:
        with self._lock:
            while (
                self._next_job is not None
                and self._unanswered < QUEUED_AT_HELPER
                and ((self._ahead_bytes < PREFETCH_BYTES and self._replied_bytes < REPLIES_AHEAD_BYTES)
                     or not self._sent)
            ):
                job, self._next_job = self._next_job, next(self._jobs, None)
                # Prepared files piling up here means the writer is the slower side: the helper
                # takes this file's text into the side trigram table.
                self._send_locked(("prepare", job, self._now, self._take_text()), job.size)

    def _send_locked(self, request: tuple, size: int | None, prepared_here: PreparedFile | None = None) -> None:
        assert self._proc.stdin is not None
        try:
            pickle.dump(request, self._proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return  # it died: receive() reports why
        self._sent.append((size, prepared_here))
        self._unanswered += 1
        self._ahead_bytes += size or 0

    def _drain(self) -> None:
        """Move reply frames off the pipe as soon as they arrive (runs in a thread)."""
        stream = self._proc.stdout
        assert stream is not None
        try:
            while True:
                header = stream.read(_FRAME.size)
                if len(header) < _FRAME.size:
                    break
                (size,) = _FRAME.unpack(header)
                payload = stream.read(size)
                if len(payload) < size:
                    break
                self._replies.put(payload)
                with self._lock:
                    self._unanswered -= 1
                    self._replied_bytes += size
                self._feed()
        except (OSError, ValueError):
            pass
        self._replies.put(_EOF)

    def _take_text(self) -> bool:
        return self.sharing.take_text()

    def receive(self) -> Any:
        """The next reply in order: a ``PreparedFile`` for each job. While none has arrived
        the parent prepares the next job itself rather than wait (``_prepare_here``); that time
        counts as waiting for ``sharing``, which keeps the text with the parent then."""
        started = time.monotonic()
        while self._nothing_arrived() and self._prepare_here():
            pass
        payload = self._replies.get()
        self.sharing.writer_waited(time.monotonic() - started, time.monotonic())
        if payload is _EOF:
            self._replies.put(_EOF)  # any later receive fails the same way
            raise HelperError(self._death_note("it stopped answering"))
        with self._lock:
            size, prepared_here = self._sent.popleft() if self._sent else (None, None)
            self._ahead_bytes -= size or 0
            if prepared_here is not None:
                self._here_bytes -= size or 0
            self._replied_bytes -= len(payload)
        self._feed()
        reply = pickle.loads(payload)
        if isinstance(reply, tuple) and reply and reply[0] == "error":
            raise HelperError(f"the index helper process failed:\n{reply[1]}")
        if prepared_here is not None:  # the helper's answer to its "side" request: its ids
            prepared_here.first_id, prepared_here.side_committed = reply
            return prepared_here
        return reply

    def _nothing_arrived(self) -> bool:
        return self._replies.empty()

    def _prepare_here(self) -> bool:
        """Prepare the next job in this process, and send the helper only its side-file entries
        (it hands out the ids, in the order requests come). Not past ``PREPARED_HERE_BYTES``
        nor ``PREFETCH_BYTES``. True if it did."""
        with self._lock:
            job = self._next_job
            if job is None or self._ahead_bytes >= PREFETCH_BYTES or self._here_bytes + job.size > PREPARED_HERE_BYTES:
                return False
            self._next_job = next(self._jobs, None)
            self._here_bytes += job.size
        prepared = prepare_safely(job, self._now)
        with self._lock:
            take_text = self._take_text()
        entries = side_entries(prepared.rows, prepared.grams, take_text=take_text, skip=prepared.kept)
        prepared.grams, prepared.text_in_side = [], take_text
        with self._lock:
            self._send_locked(("side", entries, prepared.bytes_read), job.size, prepared)
            self.prepared_here += 1
        self._feed()
        return True

    def request(self, *request: Any) -> Any:
        """Send one request after every queued job is dropped, and wait for its answer."""
        with self._lock:
            self._drop_jobs()
            self._send_locked(request, None)
            waiting = len(self._sent)
        for _ in range(waiting - 1):  # results of jobs already sent: no longer wanted
            self.receive()
        return self.receive()

    def commit(self) -> None:
        """Commit the side file up to everything sent so far (the rest of the jobs is dropped)."""
        if self.request("commit") != "committed":
            raise HelperError("the index helper process did not confirm its commit")

    def close(self) -> None:
        """Ask it to stop (it drops what it did not commit) and reap it."""
        with self._lock:
            self._drop_jobs()
            try:
                if self._proc.stdin:
                    self._proc.stdin.close()
            except OSError:
                pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._reader.join(timeout=10)
        if self._proc.stdout:
            self._proc.stdout.close()
        self._stderr.close()

    def _drop_jobs(self) -> None:
        self._jobs, self._next_job = iter(()), None

    def _death_note(self, what: str) -> str:
        code = self._proc.poll()
        self._stderr.seek(0)
        tail = self._stderr.read()[-2000:].decode("utf-8", "replace").strip()
        status = f"exit code {code}" if code is not None else "still running"
        return f"the index helper process failed: {what}, {status}" + (f"\n{tail}" if tail else "")


def _send_frame(replies: BinaryIO, reply: Any) -> None:
    payload = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
    replies.write(_FRAME.pack(len(payload)))
    replies.write(payload)
    replies.flush()


def serve(db_path: Path, next_id: int, requests: BinaryIO, replies: BinaryIO) -> None:
    """The helper's loop: answer requests until the parent closes the pipe."""
    incoming: queue.SimpleQueue = queue.SimpleQueue()

    def read_requests() -> None:
        while True:
            try:
                incoming.put(pickle.load(requests))
            except (EOFError, OSError, pickle.UnpicklingError):
                incoming.put(_EOF)
                return

    threading.Thread(target=read_requests, name="requests", daemon=True).start()
    writer = SideWriter(db_path, next_id)
    try:
        while True:
            request = incoming.get()
            if request is _EOF:
                return
            try:
                if request[0] == "prepare":
                    _, job, now, take_text = request
                    reply: Any = for_the_writer(prepare_with_side(writer, job, now, take_text=take_text))
                elif request[0] == "side":
                    _, entries, size = request
                    reply = writer.write(entries, size)
                elif request[0] == "commit":
                    writer.commit()
                    reply = "committed"
                else:
                    reply = ("error", f"unknown request {request[0]!r}")
            except Exception:
                reply = ("error", traceback.format_exc())
            _send_frame(replies, reply)
    finally:
        writer.close()


if __name__ == "__main__":
    # Replies get a private copy of stdout; a stray print goes to stderr, not into the protocol.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    from indexer.upkeep.pack_training import use_index_dictionary

    use_index_dictionary(Path(sys.argv[1]), int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    serve(Path(sys.argv[1]), int(sys.argv[2]), sys.stdin.buffer, replies)

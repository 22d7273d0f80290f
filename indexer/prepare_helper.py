"""The helper process of a big index run: reads and parses logs and writes the side file.

Started as ``python -m indexer.prepare_helper DB NEXT_ID`` rather than through
multiprocessing: fork must not copy SQLite's state from a parent that has the same files
open (nor run from the app's indexing thread), and multiprocessing's spawn re-runs the
caller's main script, which a library cannot ask of its callers.

The protocol is pickled tuples over the pipes, in order: ``("prepare", job, now)`` gets a
``PreparedFile``, ``("commit",)`` gets ``"committed"``; any failure gets ``("error", text)``.
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
import traceback
from pathlib import Path
from typing import Any, BinaryIO

_FRAME = struct.Struct("<Q")
SHARE_WHEN_WAITING = 2  # requests queued here, at most, for the helper to take a file's text
_EOF = object()


class HelperError(RuntimeError):
    """The helper failed or died; the message says why."""


class HelperProcess:
    """The parent's handle on one helper."""

    def __init__(self, db_path: Path, next_id: int):
        package_root = str(Path(__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        # Its stderr goes to a file: on a terminal app it would scribble over the screen.
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "indexer.prepare_helper", str(db_path), str(next_id)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
        )
        self.outstanding = 0
        self._replies: queue.SimpleQueue = queue.SimpleQueue()
        self._reader = threading.Thread(target=self._drain, name="index-helper-replies", daemon=True)
        self._reader.start()

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
        except (OSError, ValueError):
            pass
        self._replies.put(_EOF)

    def send(self, *request: Any) -> None:
        assert self._proc.stdin is not None
        try:
            pickle.dump(request, self._proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise HelperError(self._death_note(f"cannot reach it ({exc})")) from None
        self.outstanding += 1

    def receive(self) -> Any:
        payload = self._replies.get()
        if payload is _EOF:
            self._replies.put(_EOF)  # any later receive fails the same way
            raise HelperError(self._death_note("it stopped answering"))
        reply = pickle.loads(payload)
        self.outstanding -= 1
        if isinstance(reply, tuple) and reply and reply[0] == "error":
            raise HelperError(f"the index helper process failed:\n{reply[1]}")
        return reply

    def commit(self) -> None:
        """Commit the side file up to everything sent so far; replies still in flight are dropped."""
        self.send("commit")
        while True:
            if self.receive() == "committed":
                return

    def close(self) -> None:
        """Ask it to stop (it drops what it did not commit) and reap it."""
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
    from indexer.ingest import prepare_with_side
    from indexer.side_index import SideWriter

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
                    # Few requests waiting means the main writer is the slower one: take this
                    # file's text into the side trigram table. Many means we are: leave it.
                    take_text = incoming.qsize() <= SHARE_WHEN_WAITING
                    reply: Any = prepare_with_side(writer, request[1], request[2], take_text=take_text)
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
    serve(Path(sys.argv[1]), int(sys.argv[2]), sys.stdin.buffer, replies)

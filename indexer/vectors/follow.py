"""Embedding while a big index run reads its logs, so the run's embedding step finds little left.

A process of its own, at a lower priority (it takes the time the run's two processes leave
idle), reads the messages the run commits, in id order as they are committed, and embeds them.
Its codes wait in temporary files: the run's writer holds the index's write lock while it reads,
and a second writer there would break the writer's transactions (a deferred transaction whose
snapshot another writer moved cannot write). When the run has read its logs it closes the
pipe; the process then stores its codes, embeds what is left as any run does
(``indexer.vectors.build.update_codes``) and ends, printing its problems as the embedding
process of ``indexer.vectors.build`` does.

On the 1 GB real-format tree the embedding step after the logs were read took 5.6 s of a 46 s
build, with ~8 s of the two cores' time idle while the logs were read.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from indexer.vectors.model import Embedder

# A run reading less embeds after reading, in a process of its own from ``APART_FROM`` messages
# waiting (``indexer.vectors.build``); one reading more starts this process beside it.
ALONGSIDE_FROM_BYTES = 64 * 1024 * 1024
NICENESS = 10  # lower priority than the run: a tenth of a core's share when both are busy
POLL_SECONDS = 0.25  # between reads when nothing new was committed
STORE_ROWS = 16_384  # codes stored per transaction at the end


class EmbeddingAlongside:
    """The run's handle on the process: started before the logs are read, finished after."""

    def __init__(self, db_path: str | Path):
        from indexer.vectors.build import child_env

        self._out = tempfile.TemporaryFile("w+")
        self._err = tempfile.TemporaryFile("w+")
        self._child = subprocess.Popen([sys.executable, "-P", "-m", "indexer.vectors.follow", str(db_path)],
                                       stdin=subprocess.PIPE, stdout=self._out, stderr=self._err, text=True,
                                       env=child_env())

    def finish(self, should_stop: Callable[[], bool] | None = None) -> list[str]:
        """The logs are read: store the codes, embed the rest and end. Returns its problems."""
        from indexer.vectors.build import wait_for_child

        self._close_pipe()
        try:
            return wait_for_child(self._child, self._out, self._err, should_stop)
        finally:
            self._close_files()

    def stop(self) -> None:
        """End it without storing anything (the run failed or was stopped)."""
        if self._child.poll() is None:
            self._child.terminate()
            self._child.wait()
        self._close_pipe()
        self._close_files()

    def _close_pipe(self) -> None:
        try:
            if self._child.stdin is not None:
                self._child.stdin.close()
        except OSError:
            pass  # it ended already: finish reports how

    def _close_files(self) -> None:
        self._out.close()
        self._err.close()


def start_alongside(db_path: str | Path, bytes_to_read: int) -> EmbeddingAlongside | None:
    """The process, for a run reading at least ``ALONGSIDE_FROM_BYTES`` with search by meaning
    on and its model's package installed (looked for, not loaded); None otherwise."""
    if bytes_to_read < ALONGSIDE_FROM_BYTES:
        return None
    from indexer.config import load_meaning_setting
    from indexer.vectors.model import DEFAULT_MODEL, WORDLLAMA, package_folder

    setting = load_meaning_setting()
    if not setting.enabled or setting.problem or DEFAULT_MODEL != WORDLLAMA or package_folder("wordllama") is None:
        return None
    return EmbeddingAlongside(db_path)


def follow(db_path: str, done: threading.Event) -> list[str]:
    """The process's work: embed what the run commits until ``done``, then store it all and
    embed the rest. Returns problems for the run's summary."""
    from indexer.vectors.model import DEFAULT_MODEL, ModelUnavailable, load_embedder

    try:
        embedder = load_embedder(DEFAULT_MODEL)
    except ModelUnavailable:
        return []  # the run's own embedding step says nothing of it either (meaning_status does)
    conn = sqlite3.connect(db_path, isolation_level=None, timeout=30)
    try:
        conn.execute("PRAGMA cache_size = -4096")  # each message is read once, in id order
        with tempfile.TemporaryFile() as ids_file, tempfile.TemporaryFile() as codes_file:
            start = _embedded_through(conn, embedder.name)
            through = _embed_as_committed(conn, embedder, start, done, ids_file, codes_file)
            _store_spilled(conn, embedder, start, through, ids_file, codes_file)
        from indexer.vectors.build import update_codes

        update_codes(conn, embedder)
        return []
    except sqlite3.OperationalError as exc:
        return [f"search by meaning could not store its vectors: {exc}"]
    finally:
        conn.close()


def _embedded_through(conn: sqlite3.Connection, model: str) -> int:
    """Where the index's codes stop: 0 when it has none, or another model's."""
    from indexer.vectors import store

    return store.embedded_through(conn) if store.holds_codes_of(conn, model) else 0


def _embed_as_committed(conn: sqlite3.Connection, embedder: Embedder, through: int, done: threading.Event,
                        ids_file: IO[bytes], codes_file: IO[bytes]) -> int:
    """Embed every message above ``through`` as it is committed, until ``done`` and nothing is
    left; codes go to the files. The run commits messages in id order (the ids are handed out
    in the order files are stored), so a message above the last one read is never missed."""
    import numpy as np

    from indexer.vectors.build import BATCH, codes_of
    from indexer.vectors.codes import EMBEDDED_WHERE

    while True:
        finished = done.is_set()  # before the read: what was committed by then is read next
        rows = conn.execute(f"SELECT id, text FROM main.messages WHERE id > ? AND {EMBEDDED_WHERE}"
                            " ORDER BY id LIMIT ?", (through, BATCH)).fetchall()
        if not rows:
            if finished:
                return through
            done.wait(POLL_SECONDS)
            continue
        codes_file.write(codes_of(embedder, [r[1] for r in rows]).tobytes())
        ids_file.write(np.asarray([r[0] for r in rows], dtype=np.int64).tobytes())
        through = rows[-1][0]


def _store_spilled(conn: sqlite3.Connection, embedder: Embedder, start: int, through: int,
                   ids_file: IO[bytes], codes_file: IO[bytes]) -> None:
    """Store the codes written to the files, dropping those of messages deleted since; nothing
    when the index's codes moved meanwhile (another model, another writer): ``update_codes``
    then embeds everything itself."""
    import numpy as np

    from indexer.vectors import store
    from indexer.vectors.build import in_transaction, store_codes
    from indexer.vectors.codes import EMBEDDED_WHERE

    width = embedder.dim // 8
    if in_transaction(conn, lambda: store.ensure(conn, embedder.name)) != start or through == start:
        return
    ids_file.seek(0)
    codes_file.seek(0)
    while True:
        ids = np.fromfile(ids_file, dtype=np.int64, count=STORE_ROWS)
        if not len(ids):
            return
        codes = np.fromfile(codes_file, dtype=np.uint8, count=len(ids) * width).reshape(len(ids), width)
        present = np.fromiter((r[0] for r in conn.execute(
            f"SELECT id FROM main.messages WHERE id BETWEEN ? AND ? AND {EMBEDDED_WHERE}",
            (int(ids[0]), int(ids[-1])))), dtype=np.int64)
        keep = np.isin(ids, present)
        last = through if len(ids) < STORE_ROWS else int(ids[-1])
        in_transaction(conn, lambda: store_codes(conn, ids[keep].tolist(), codes[keep], (), width, last))


def _main(db_path: str) -> None:
    """The process: lower its priority, watch its stdin for the run's end, follow, report."""
    try:
        os.nice(NICENESS)
    except (AttributeError, OSError):
        pass  # not on this platform: it only takes more of the cores
    done = threading.Event()

    def wait_for_the_run() -> None:
        sys.stdin.read()  # until the run closes the pipe, or ends
        done.set()

    threading.Thread(target=wait_for_the_run, name="run-end", daemon=True).start()
    for problem in follow(db_path, done):
        print(problem)


if __name__ == "__main__":
    _main(sys.argv[1])

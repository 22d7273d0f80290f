"""Bringing the codes up to date after an index run: embed the messages stored since the last
update, drop the codes of deleted ones, in batches that each commit (a stopped run goes on
where it left off). Only what changed is embedded: a cold build embeds every message once, an
appended line embeds that line's messages.
"""

from __future__ import annotations

import sqlite3
from typing import IO, Callable, TypeVar

from indexer.vectors import store
from indexer.vectors.codes import EMBEDDED_WHERE, embedded_texts, to_codes

from typing import TYPE_CHECKING
if TYPE_CHECKING:  # numpy and the model load only when there is something to embed
    import subprocess

    import numpy as np

    from indexer.vectors.model import Embedder

T = TypeVar("T")

BATCH = 1000  # messages embedded and committed together (5000 long texts held ~12 MB more at 3 GB)
# More messages than this waiting (a cold build, a big catch-up) are embedded in a process of
# their own: the model's tables beside the writer's page cache put a 0.7 GB cold build's main
# process at ~200 MB, where each process alone stays under 120 MB (bench/speed/bench_memory.py).
APART_FROM = 20_000
APART_POLL_S = 0.2
# Fewer messages than this waiting are left for a later run: loading the model (numpy and the
# tokenizer, ~170 ms) doubled what a hook's run after one turn costs (10 lines appended to 5
# logs: ~390 ms, ~180 without). A search by meaning embeds the waiting ones itself
# (``indexer.search.meaning``), so they are found all the same.
EMBED_FROM = 256
ALL, FORGET, NEW_ONLY = "all", "forget", "new only"  # what waits (``_waiting_work``)


def update_codes(conn: sqlite3.Connection, embedder: Embedder, should_stop: Callable[[], bool] | None = None) -> int:
    """Embed what is new, forget what is gone; returns how many messages were embedded. Call
    with the index lock held (the only writer), on a connection in autocommit mode."""
    width = embedder.dim // 8
    in_transaction(conn, lambda: store.ensure(conn, embedder.name))
    embedded = _redo_gone(conn, embedder, width)
    through = store.embedded_through(conn)
    while not (should_stop and should_stop()):
        rows = conn.execute(f"SELECT id, text FROM main.messages WHERE id > ? AND {EMBEDDED_WHERE}"
                            " ORDER BY id LIMIT ?", (through, BATCH)).fetchall()
        if len(rows) < BATCH:  # the last batch: every id up to the largest has been seen
            top = conn.execute("SELECT max(id) FROM main.messages").fetchone()[0] or 0
            through = max(through, top)
        else:
            through = rows[-1][0]
        codes = codes_of(embedder, [r[1] for r in rows])
        in_transaction(conn, lambda: store_codes(conn, [r[0] for r in rows], codes, (), width, through))
        embedded += len(rows)
        if len(rows) < BATCH:
            break
    return embedded


def _redo_gone(conn: sqlite3.Connection, embedder: Embedder, width: int) -> int:
    """Drop the codes of deleted messages; embed again those whose ids new messages now hold."""
    gone = [r[0] for r in conn.execute("SELECT DISTINCT id FROM main.meaning_gone")]
    if not gone:
        return 0
    through = store.embedded_through(conn)
    again: list[tuple[int, str]] = []
    for start in range(0, len(gone), 500):
        chunk = [i for i in gone[start:start + 500] if i <= through]  # above: the main loop embeds them
        if chunk:
            again += conn.execute(f"SELECT id, text FROM main.messages WHERE id IN ({','.join('?' * len(chunk))})"
                                  f" AND {EMBEDDED_WHERE}", chunk).fetchall()
    codes = codes_of(embedder, [r[1] for r in again])
    in_transaction(conn, lambda: store_codes(conn, [r[0] for r in again], codes, gone, width, through, clear_gone=True))
    return len(again)


def codes_of(embedder: Embedder, texts: list[str]) -> np.ndarray:
    keep = embedder.keeps_all_scripts
    return to_codes(embedder.embed(embedded_texts(texts, keep)))


def store_codes(conn: sqlite3.Connection, ids: list[int], codes: np.ndarray, gone: list[int] | tuple, width: int,
                through: int, clear_gone: bool = False) -> None:
    """Merge new codes into their blocks and drop the gone ids', then move the mark."""
    import numpy as np

    new_ids = np.asarray(ids, dtype=np.int64)
    gone_ids = np.asarray(gone, dtype=np.int64)
    blocks = set((new_ids >> store.BLOCK_BITS).tolist()) | set((gone_ids >> store.BLOCK_BITS).tolist())
    for block in sorted(blocks):
        base = block << store.BLOCK_BITS
        offsets, old = store.read_block(conn, block, width)
        in_new = (new_ids >> store.BLOCK_BITS) == block
        add_offsets = (new_ids[in_new] - base).astype(np.uint16)
        dropped = (gone_ids[(gone_ids >> store.BLOCK_BITS) == block] - base).astype(np.uint16)
        keep = ~np.isin(offsets, np.concatenate([dropped, add_offsets]))
        merged_offsets = np.concatenate([offsets[keep], add_offsets])
        merged = np.concatenate([old[keep], codes[in_new]])
        order = np.argsort(merged_offsets, kind="stable")
        store.write_block(conn, block, merged_offsets[order], merged[order])
    if clear_gone:
        conn.execute("DELETE FROM main.meaning_gone")
    store.set_meta(conn, "meaning_through", str(through))
    store.set_meta(conn, "meaning_serial", str(int(store.meta_value(conn, "meaning_serial") or 0) + 1))


def in_transaction(conn: sqlite3.Connection, work: Callable[[], T]) -> T:
    """``work()``, committed; rolled back if it raises. Returns what it returned."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = work()
        conn.execute("COMMIT")
        return result
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def update_meaning(conn: sqlite3.Connection, should_stop: Callable[[], bool] | None = None,
                   db_path: str | None = None) -> list[str]:
    """The index run's one call: bring the codes up to date when search by meaning is on (drop
    them when it is off). Returns problems for the run's summary; a model that is not installed
    is not one (``meaning_status`` says so), and nothing here stops the run. ``db_path``: the
    index file, so that much waiting work is embedded in a process of its own."""
    from indexer.config import load_meaning_setting

    setting = load_meaning_setting()
    problems = [setting.problem] if setting.problem else []
    try:
        if not setting.enabled:
            in_transaction(conn, lambda: store.drop(conn))
            return problems
        problems += _rebuild_if_damaged(conn)
        problems += _update_if_waiting(conn, should_stop, db_path)
    except store.VectorsDamaged as exc:  # codes of a width the model does not make
        in_transaction(conn, lambda: store.drop(conn))
        problems.append(f"the vectors for search by meaning were damaged ({exc}); the next index run builds them again")
    except sqlite3.OperationalError as exc:  # a full disk, a busy file: the messages are stored, the next run embeds
        problems.append(f"search by meaning could not store its vectors: {exc}")
    return problems


def _update_if_waiting(conn: sqlite3.Connection, should_stop: Callable[[], bool] | None,
                       db_path: str | None, *, leave_few: bool = True) -> list[str]:
    """``leave_few``: leave fewer than ``EMBED_FROM`` new messages for a later run (False in the
    process a run started to embed: the run decided there was work)."""
    try:
        from indexer.vectors.model import DEFAULT_MODEL, ModelUnavailable, load_embedder
    except ImportError:
        return []
    work = _waiting_work(conn, DEFAULT_MODEL)
    if not work or (leave_few and work == NEW_ONLY and _waiting_count(conn, EMBED_FROM) < EMBED_FROM):
        return []  # nothing, or few new messages: left for a run that finds more
    if db_path is not None and _waiting_count(conn, APART_FROM + 1) > APART_FROM:
        return _embed_apart(db_path, should_stop)
    try:
        embedder = load_embedder(DEFAULT_MODEL)
    except ModelUnavailable:
        return []
    update_codes(conn, embedder, should_stop)
    return []


def _waiting_count(conn: sqlite3.Connection, at_most: int) -> int:
    through = store.embedded_through(conn) if store.has_tables(conn) else 0
    return conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM main.messages WHERE id > ? AND {EMBEDDED_WHERE}"
                        " LIMIT ?)", (through, at_most)).fetchone()[0]


def _embed_apart(db_path: str, should_stop: Callable[[], bool] | None) -> list[str]:
    """``python -m indexer.vectors.build DB`` does the embedding; the caller holds the index lock
    and waits. Stopped, the child is ended: each batch it finished is committed, the next run
    goes on from there."""
    import subprocess  # here, not on top: a run with nothing to embed never loads it (~4 ms)
    import sys
    import tempfile

    # Its output goes to files, not pipes: a pipe nobody reads until the end could fill and stall it.
    with tempfile.TemporaryFile("w+") as out_file, tempfile.TemporaryFile("w+") as err_file:
        child = subprocess.Popen([sys.executable, "-P", "-m", "indexer.vectors.build", str(db_path)],
                                 stdout=out_file, stderr=err_file, text=True, env=child_env())
        return wait_for_child(child, out_file, err_file, should_stop)


def child_env() -> dict[str, str]:
    """The environment of an embedding process (``python -P -m ...``)."""
    import os

    from indexer.vectors.model import BLAS_THREADS

    # The tokenizer's thread pool keeps memory per thread and buys nothing here: it only reads
    # words not seen before, a few hundred a batch (12 MB less at 3 GB, no slower).
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    # Pooling is then one small matrix product a batch (``WordLlamaEmbedder._pool``): BLAS on a
    # second thread took twice the CPU for it, and this process is one of three on a build.
    env.update(dict.fromkeys(BLAS_THREADS, "1"))
    # This code, not whatever ``indexer`` the current folder holds (``-P``: python -m would put
    # that folder first on the child's path), as the index helper does.
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env


def wait_for_child(child: subprocess.Popen, out_file: IO[str], err_file: IO[str],
                   should_stop: Callable[[], bool] | None) -> list[str]:
    """Wait for an embedding process, ending it when asked to stop; the problems it printed,
    or why it failed."""
    import time

    while child.poll() is None:
        if should_stop is not None and should_stop():
            child.terminate()
            child.wait()
            return []
        time.sleep(APART_POLL_S)
    out_file.seek(0)
    err_file.seek(0)
    out, err = out_file.read(), err_file.read()
    if child.returncode != 0:
        last = (err.strip().splitlines() or ["no message"])[-1]
        return [f"search by meaning could not build its vectors in its own process ({last}); "
                "the next index run goes on where it stopped"]
    return [line for line in out.splitlines() if line.strip()]


def _embed_here(db_path: str) -> None:
    """The child's side of ``_embed_apart``: embed what waits, say its problems on stdout."""
    conn = sqlite3.connect(db_path, isolation_level=None, timeout=30)
    try:
        conn.execute("PRAGMA cache_size = -4096")  # each message is read once, in id order
        for problem in _update_if_waiting_here(conn):
            print(problem)
    finally:
        conn.close()


def _update_if_waiting_here(conn: sqlite3.Connection) -> list[str]:
    try:
        return _update_if_waiting(conn, None, None, leave_few=False)
    except sqlite3.OperationalError as exc:
        return [f"search by meaning could not store its vectors: {exc}"]


def _rebuild_if_damaged(conn: sqlite3.Connection) -> list[str]:
    try:
        store.check(conn)
    except store.VectorsDamaged as exc:
        in_transaction(conn, lambda: store.drop(conn))
        return [f"the vectors for search by meaning were damaged ({exc}); they are built again"]
    return []


def _waiting_work(conn: sqlite3.Connection, model: str) -> str:
    """What needs doing, found without loading the model: ``ALL`` (no codes of this model),
    ``FORGET`` (messages deleted, maybe with new ones), ``NEW_ONLY`` (new messages), "" nothing.
    When the messages stored since are all tool calls and output, the mark moves past them here."""
    if not store.holds_codes_of(conn, model):
        return ALL
    if conn.execute("SELECT 1 FROM main.meaning_gone LIMIT 1").fetchone():
        return FORGET
    through = store.embedded_through(conn)
    if conn.execute(f"SELECT 1 FROM main.messages WHERE id > ? AND {EMBEDDED_WHERE} LIMIT 1", (through,)).fetchone():
        return NEW_ONLY
    top = conn.execute("SELECT max(id) FROM main.messages").fetchone()[0] or 0
    if top > through:
        in_transaction(conn, lambda: store.set_meta(conn, "meaning_through", str(top)))
    return ""


if __name__ == "__main__":
    import sys

    _embed_here(sys.argv[1])

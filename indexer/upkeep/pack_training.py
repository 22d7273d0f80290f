"""The index's packing dictionary, trained before a run packs anything (``indexer.store.packing``).

An index without one trains it at the start of a run from its newest stored tool output and
the first logs the run is about to read (about 0.5 s, once), stores it in the index, and
from then on both this process and the helper pack with it. Too little tool output to train
on (a new, small history) leaves packing with zlib; a later run tries again.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from indexer.ingest.log_read import is_one_json_document
from indexer.ingest.job_list import FileJob, JobList
from indexer.sources import PARSERS, is_whole_document
from indexer.sources.base import SessionMeta
from indexer.store import packing
from indexer.store.connection import file_uri
from indexer.store.pack_dictionary import PackDictionary, newest_dictionary, save_dictionary, train_dictionary

SAMPLES_WANTED = 2000  # 2,000 outputs trained a dictionary as good as 20,000 (2.76x)
SAMPLE_BYTES_WANTED = 16 * 1024 * 1024
MIN_SAMPLES = 300  # fewer: no dictionary yet (zstd trains poorly on fewer; a later run tries again)
SAMPLE_MAX_BYTES = 64 * 1024  # one sample's head: a long output teaches no more than its start
READ_PER_LOG = 8 * 1024 * 1024
# Logs looked at, at most: a history of small logs with little tool output (126,000 logs of
# 1.5 KB) was parsed whole here, 26 s before the build began, when a few thousand logs teach
# what there is to teach.
LOGS_AT_MOST = 2000


def prepare_packing(conn: sqlite3.Connection, jobs: JobList, now: float) -> int:
    """Make this process pack with the index's dictionary, training one if it has none and
    there is enough to train on. Returns its id for the helper process (0: pack with zlib).
    A run with nothing to read does nothing here: a no-change run must not load zstandard."""
    if not jobs:
        return 0
    dictionary = newest_dictionary(conn)
    if dictionary is None and not conn.in_transaction:  # the helper must see it committed
        dictionary = _train(conn, jobs)
        if dictionary is not None:
            save_dictionary(conn, dictionary, now)  # committed now: the helper reads it from here
    if dictionary is None:
        packing.use_dictionary(0, None)
        return 0
    packing.use_dictionary(dictionary.id, dictionary.data)
    return dictionary.id


def use_index_dictionary(db_path: Path, dictionary_id: int) -> None:
    """In the helper process: pack with the dictionary the main process chose."""
    if not dictionary_id:
        packing.use_dictionary(0, None)
        return
    conn = sqlite3.connect(file_uri(db_path, readonly=True), uri=True)
    try:
        row = conn.execute("SELECT data FROM pack_dictionaries WHERE id = ?", (dictionary_id,)).fetchone()
    finally:
        conn.close()
    if row is None:
        raise RuntimeError(f"the index lacks packing dictionary {dictionary_id}")
    packing.use_dictionary(dictionary_id, bytes(row[0]))


def _train(conn: sqlite3.Connection, jobs: JobList) -> PackDictionary | None:
    samples = _stored_samples(conn)
    if len(samples) < SAMPLES_WANTED:
        samples += _log_samples(jobs, SAMPLES_WANTED - len(samples))
    if len(samples) < MIN_SAMPLES:
        return None
    return train_dictionary(samples)


def _stored_samples(conn: sqlite3.Connection) -> list[bytes]:
    """The newest tool outputs already stored (an index from before schema 10)."""
    rows = conn.execute(
        "SELECT text FROM messages WHERE indexed IN (0, 3) AND typeof(text) = 'blob' ORDER BY id DESC LIMIT ?",
        (SAMPLES_WANTED,),
    )
    samples = []
    for (value,) in rows:
        text = packing.unpack(value, conn)
        if text and not text.startswith(packing.UNREADABLE):
            samples.append(text.encode("utf-8", "surrogatepass")[:SAMPLE_MAX_BYTES])
    return samples


def _log_samples(jobs: JobList, wanted: int) -> list[bytes]:
    """Tool outputs of the first logs this run reads, parsed here once more (their real read
    packs them, on the helper process too)."""
    samples: list[bytes] = []
    total = 0
    for n, job in enumerate(jobs):
        if n >= LOGS_AT_MOST:
            break
        for text in _outputs_of(job):
            sample = text.encode("utf-8", "surrogatepass")[:SAMPLE_MAX_BYTES]
            samples.append(sample)
            total += len(sample)
            if len(samples) >= wanted or total >= SAMPLE_BYTES_WANTED:
                return samples
    return samples


def _outputs_of(job: FileJob) -> list[str]:
    path = Path(job.path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(READ_PER_LOG)
    except OSError:
        return []
    whole = is_whole_document(job.agent, path) or is_one_json_document(data)
    if not whole:
        data = data[: data.rfind(b"\n") + 1]
    try:
        parsed = PARSERS[job.agent].parse(path, data, 1, {}, SessionMeta())
    except Exception:  # a log its real read will report on: it only teaches nothing here
        return []
    return [m.text for m in parsed.messages if not m.indexed and len(m.text) >= packing.PACK_MIN_CHARS]

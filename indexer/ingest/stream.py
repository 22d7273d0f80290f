"""Prepared files in order, for the writer: from a helper process on a big run, inline otherwise."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from indexer.upkeep.pack_training import prepare_packing
from indexer.ingest.job_list import JobList

if TYPE_CHECKING:
    from indexer.ingest.helper import HelperProcess
    from indexer.ingest.prepare import PreparedFile
    from indexer.ingest.side import SideWriter

# Parsing, the helper and the side file are imported where a run has logs to read: a no-change
# run (a hook's, every few seconds) never loads them (~40 ms of a fresh process).

PARALLEL_MIN_BYTES = 32 * 1024 * 1024  # below this a helper process costs more than it saves


class PreparedStream:
    """The jobs prepared in order, each with message ids and its side-file entries written.

    On a big run a helper process (``indexer.ingest.helper``) reads, parses and writes the
    side file, including the text of the files it has time for, while this one writes
    messages and the main trigram table.
    """

    def __init__(self, jobs: JobList, now: float, db_path: Path, next_id: int, *, bytes_total: int,
                 conn: sqlite3.Connection, allow_helper: bool = True):
        """``conn``: the index, whose packing dictionary both processes pack with (trained
        first if it has none, ``indexer.upkeep.pack_training``)."""
        self.jobs, self.now = jobs, now
        dictionary_id = prepare_packing(conn, jobs, now)
        self._helper: HelperProcess | None = None
        self._inline: SideWriter | None = None
        if not jobs:
            pass  # nothing to prepare: a no-change run opens nothing
        elif allow_helper and bytes_total >= PARALLEL_MIN_BYTES and len(jobs) >= 2:
            from indexer.ingest.helper import HelperProcess

            self._helper = HelperProcess(db_path, next_id, dictionary_id)
        else:
            from indexer.ingest.side import SideWriter

            self._inline = SideWriter(db_path, next_id)

    def __iter__(self) -> Iterator[PreparedFile]:
        if self._inline is not None:
            from indexer.ingest.prepare import prepare_with_side

            for job in self.jobs.take_all():
                yield prepare_with_side(self._inline, job, self.now, take_text=False)
        helper = self._helper
        if helper is None:
            return
        count = len(self.jobs)  # take_all empties the list as the helper is fed
        helper.prepare_all(self.jobs.take_all(), self.now)
        for _ in range(count):
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

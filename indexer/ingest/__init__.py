"""Indexing the logs incrementally: read only what is new, survive anything a log holds.

Per file we keep the byte offset of the last complete line, plus hashes of the file's head
and of the bytes just before that offset. A file that grew with both hashes intact is read
from the offset; anything else (rewritten in place, shrunk, replaced) is indexed again from
scratch. A file that disappears keeps its rows: agents prune old transcripts, we do not.

Rooms: ``discover`` finds log files; ``prepare`` reads and parses one file into rows (pure:
no database, runs in the helper process on big runs); ``helper`` is that process; ``side``
writes the side file; ``stream`` feeds prepared files to ``writer``, the only writer of the
main index file; ``lock`` keeps it to one run at a time; ``run`` starts a run under that lock;
``sanitise`` makes text storable and ``failures`` keeps the files that could not be stored.
"""

from indexer.ingest.lock import IndexBusyError, IndexLock
from indexer.ingest.progress import IndexProgress, IndexSummary, ProgressCallback
from indexer.ingest.run import update_index

__all__ = ["IndexBusyError", "IndexLock", "IndexProgress", "IndexSummary", "ProgressCallback", "update_index"]

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

# The run pulls in the parsers, the helper process and the writer: loaded on first use, so a
# search (which never writes) does not pay for them.


def __getattr__(name: str):
    if name == "update_index":
        from indexer.ingest.run import update_index

        return update_index
    raise AttributeError(f"module 'indexer.ingest' has no attribute {name!r}")


__all__ = ["IndexBusyError", "IndexLock", "IndexProgress", "IndexSummary", "ProgressCallback", "update_index"]

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

# The run pulls in the parsers, the helper process and the writer, and what it reports is made
# of dataclasses: loaded on first use, so a search (which never writes) does not pay for them.
_LAZY = {"update_index": "indexer.ingest.run", "IndexProgress": "indexer.ingest.progress",
         "IndexSummary": "indexer.ingest.progress", "ProgressCallback": "indexer.ingest.progress"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'indexer.ingest' has no attribute {name!r}")


__all__ = ["IndexBusyError", "IndexLock", "IndexProgress", "IndexSummary", "ProgressCallback", "update_index"]

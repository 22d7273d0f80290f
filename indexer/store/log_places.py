"""Where a message's log is, for tool output read back from it (``indexer.store.log_ref_reader``):
the index's archive folder and the log's path as the index stores it.

Asked once per connection and file id, not once per tool output (twice per output, the path and
``PRAGMA database_list``, was most of a transcript's first read). Keeping the answer is safe: no
files row is ever deleted nor its path changed, and an index rebuilt from scratch (ids from 1
again) is a new file, which only a new connection reads. Only the index's own connections
(``IndexConnection``) keep answers; any other is asked each time.
"""

from __future__ import annotations

import sqlite3
from functools import lru_cache
from pathlib import Path

from indexer.store.connection import IndexConnection

PATHS_KEPT = 4096  # file ids per connection (a path is ~100 bytes); all forgotten when full


class _Places:
    __slots__ = ("archive_root", "paths")

    def __init__(self) -> None:
        self.archive_root: Path | None = None
        self.paths: dict[int, str] = {}


def log_of(conn: sqlite3.Connection, file_id: int) -> tuple[Path, str] | None:
    """(the index's archive folder, the log's path as stored) for a message's log; None when
    the index no longer lists it or is not a file."""
    places = conn.log_places if isinstance(conn, IndexConnection) else None
    if not isinstance(places, _Places):
        places = _Places()
        if isinstance(conn, IndexConnection):
            conn.log_places = places
    if places.archive_root is None:
        main = next((r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"), "")
        if not main:
            return None
        places.archive_root = _archive_dir(main)
    path = places.paths.get(file_id)
    if path is None:
        row = conn.execute("SELECT path FROM main.files WHERE id = ?", (file_id,)).fetchone()
        if row is None:
            return None
        if len(places.paths) >= PATHS_KEPT:
            places.paths.clear()
        path = places.paths[file_id] = row[0]
    return places.archive_root, path


@lru_cache(maxsize=8)
def _archive_dir(index_file: str) -> Path:
    from indexer.archive import archive_dir_for

    return archive_dir_for(Path(index_file))

"""The archive: a copy of every log file as it is indexed (a hard link while the agent keeps
the log, zstd frames once it is deleted or where no link can be made), which outlives the
agent's own cleanup and can be written back (``restore_log``) so the session resumes, or a byte
range of it read back (``read_range``, ``read_ranges``) without the rest.

Each name loads from its module on first use (``indexer.lazy_names``): an index run that reads
no log asks only the archive's size (``manifest``), and never loads zstandard, the copying
threads or the restore (~20 ms of a no-change run's fresh process)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexer import lazy_names

_WHERE = {
    "ArchiveError": "indexer.archive.manifest",
    "ArchiveSize": "indexer.archive.manifest",
    "archive_dir_for": "indexer.archive.manifest",
    "archive_size": "indexer.archive.manifest",
    "archive_size_cached": "indexer.archive.manifest",
    "archived_log_path": "indexer.archive.ranges",
    "read_range": "indexer.archive.ranges",
    "read_ranges": "indexer.archive.ranges",
    "Restored": "indexer.archive.restore",
    "RestoreRefused": "indexer.archive.restore",
    "restore_log": "indexer.archive.restore",
    "ArchiveOutcome": "indexer.archive.writer",
    "archive_read_bytes": "indexer.archive.writer",
    "start_archiving": "indexer.archive.writer",
}

__getattr__, __dir__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:  # what type checkers and editors see
    from indexer.archive.manifest import ArchiveError, ArchiveSize, archive_dir_for, archive_size, archive_size_cached
    from indexer.archive.ranges import archived_log_path, read_range, read_ranges
    from indexer.archive.restore import Restored, RestoreRefused, restore_log
    from indexer.archive.writer import ArchiveOutcome, archive_read_bytes, start_archiving

__all__ = [
    "ArchiveError", "ArchiveOutcome", "ArchiveSize", "RestoreRefused", "Restored",
    "archive_dir_for", "archive_read_bytes", "archive_size", "archive_size_cached", "archived_log_path", "read_range",
    "read_ranges", "restore_log", "start_archiving",
]

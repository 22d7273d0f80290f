"""The archive: a copy of every log file as it is indexed (a hard link while the agent keeps
the log, zstd frames once it is deleted or where no link can be made), which outlives the
agent's own cleanup and can be written back (``restore_log``) so the session resumes, or a byte
range of it read back (``read_range``, ``read_ranges``) without the rest."""

from indexer.archive.manifest import ArchiveError, ArchiveSize, archive_dir_for, archive_size, archive_size_cached
from indexer.archive.ranges import archived_log_path, read_range, read_ranges
from indexer.archive.restore import Restored, RestoreRefused, restore_log
from indexer.archive.writer import ArchiveOutcome, archive_read_bytes, start_archiving

__all__ = [
    "ArchiveError", "ArchiveOutcome", "ArchiveSize", "RestoreRefused", "Restored",
    "archive_dir_for", "archive_read_bytes", "archive_size", "archive_size_cached", "archived_log_path", "read_range",
    "read_ranges",
    "restore_log", "start_archiving",
]

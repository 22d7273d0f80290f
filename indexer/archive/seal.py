"""Sealing a linked copy: once the agent deleted the log, the hard link in the archive is the
only name its bytes have left, so they become zstd frames (with hashes) and the link goes.
A crash before sealing leaves the link, which ``restore`` reads all the same."""

from __future__ import annotations

from pathlib import Path

import zstandard

from indexer.archive.manifest import ArchiveError, load_manifest, manifest_path
from indexer.archive.reader import read_all
from indexer.archive.writer import new_generation


def seal_links(root: Path, keys: list[str]) -> list[str]:
    """Seal the linked copy of each log stored as one of ``keys`` (logs just found gone);
    copies kept as frames are left alone. Returns the problems, one line per log."""
    problems: list[str] = []
    for key in keys:
        manifest_file = manifest_path(Path(root), key)
        try:
            manifest = load_manifest(manifest_file)
            if manifest is None or not manifest.linked:
                continue
            new_generation(manifest_file, manifest, manifest.path, read_all(manifest_file, manifest))
        except (OSError, ArchiveError, zstandard.ZstdError, MemoryError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            problems.append(f"{key}: archived link not sealed ({reason})")
    return problems

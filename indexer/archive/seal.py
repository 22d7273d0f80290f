"""Sealing a linked copy: once the agent deleted the log, the hard link in the archive is the
only name its bytes have left, so they become zstd frames (with hashes) and the link goes.
A crash before sealing leaves the link, which ``restore`` reads all the same."""

from __future__ import annotations

from pathlib import Path

import zstandard

from indexer.archive.manifest import ArchiveError, forget_size, load_manifest, manifest_path
from indexer.archive.reader import read_all
from indexer.archive.writer import new_generation


def seal_links(root: Path, keys: list[str]) -> list[str]:
    """Seal the linked copy of each log stored as one of ``keys`` (logs just found gone)."""
    return seal_copies([manifest_path(Path(root), key) for key in keys])


def seal_copies(manifest_files: list[Path] | tuple[Path, ...]) -> list[str]:
    """Seal each linked copy these manifests name (copies kept as frames are left alone).
    Returns the problems, one line per log.

    The remembered size goes first: killed midway (kill -9, a power cut), the next run walks
    the archive, finds the links still alone and seals them, instead of trusting a figure from
    before the logs were deleted."""
    problems: list[str] = []
    for root in {Path(f).parent.parent for f in manifest_files}:  # <root>/<shard>/<key>.json
        forget_size(root)
    for manifest_file in manifest_files:
        try:
            _seal(manifest_file)
        except (OSError, ArchiveError, zstandard.ZstdError, MemoryError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            problems.append(f"{manifest_file}: archived link not sealed ({reason})")
    return problems


def _seal(manifest_file: Path) -> None:
    """The link's bytes as a new generation of frames (with hashes); the link goes after the
    manifest names the frames."""
    manifest = load_manifest(manifest_file)
    if manifest is not None and manifest.linked:
        new_generation(manifest_file, manifest, manifest.path, read_all(manifest_file, manifest))

"""Sealing a linked copy: once the agent deleted the log, the hard link in the archive is the
only name its bytes have left, so they become zstd frames (with hashes) and the link goes.
A crash before sealing leaves the link, which ``restore`` reads all the same."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import zstandard

from indexer.archive.manifest import ArchiveError, forget_size, load_manifest, manifest_path
from indexer.archive.reader import read_all
from indexer.archive.writer import new_generation


def seal_links(root: Path, keys: list[str]) -> list[str]:
    """Seal the linked copy of each log stored as one of ``keys`` (logs just found gone)."""
    return seal_copies([(manifest_path(Path(root), key), key) for key in keys])


def with_keys(manifest_files: Sequence[Path], keys: Iterable[str]) -> list[tuple[Path, str | None]]:
    """Each manifest file with the key of its log among ``keys`` (None where none is): a walk of
    the archive finds names, which only hash the keys (a first link has no manifest to say)."""
    wanted = {Path(f).name for f in manifest_files}
    found: dict[str, str] = {}
    if wanted:
        for key in keys:
            if (name := manifest_path(Path("."), key).name) in wanted:
                found[name] = key
    return [(Path(f), found.get(Path(f).name)) for f in manifest_files]


def seal_copies(copies: Sequence[tuple[Path, str | None]]) -> list[str]:
    """Seal each linked copy these manifests name, each with its log's key (None where it is not
    known: a first link without a manifest file is then left as it is, and read all the same);
    copies kept as frames are left alone. Returns the problems, one line per log.

    The remembered size goes first: killed midway (kill -9, a power cut), the next run walks
    the archive, finds the links still alone and seals them, instead of trusting a figure from
    before the logs were deleted."""
    problems: list[str] = []
    for root in {Path(f).parent.parent for f, _ in copies}:  # <root>/<shard>/<key>.json
        forget_size(root)
    for manifest_file, key in copies:
        try:
            _seal(manifest_file, key)
        except (OSError, ArchiveError, zstandard.ZstdError, MemoryError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            problems.append(f"{manifest_file}: archived link not sealed ({reason})")
    return problems


def _seal(manifest_file: Path, key: str | None) -> None:
    """The link's bytes as a new generation of frames (with hashes); the link goes after the
    manifest names the frames."""
    manifest = load_manifest(manifest_file, key)
    if manifest is not None and manifest.linked:
        new_generation(manifest_file, manifest, manifest.path, read_all(manifest_file, manifest))

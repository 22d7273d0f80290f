"""Writing an archived log back where it was, byte for byte, so its agent can resume it."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from indexer import errors
from indexer.archive.link import linked_chunks, linked_length
from indexer.archive.manifest import ArchiveError, Manifest, digest, find_manifest
from indexer.archive.reader import frames_of
from indexer.util.fileio import remove_if_present


class RestoreRefused(ArchiveError):
    """The target holds a different file and ``force`` was not given."""
    kind = errors.REFUSED


@dataclass(frozen=True)
class Restored:
    path: str  # where the log was written (as the OS takes it)
    bytes: int
    unchanged: bool  # the file was already there, identical: nothing written


def restore_log(root: Path, key: str, *, to: str | None = None, force: bool = False) -> Restored:
    """Write the archived copy of the log stored as ``key`` to its original path (or ``to``).

    Refuses to replace a different existing file unless ``force``; every frame is checked
    against its hash before the file appears (temp file + rename)."""
    manifest_file, manifest = find_manifest(root, key)
    length = linked_length(manifest_file, manifest) if manifest.linked else manifest.length
    target = Path(to if to is not None else manifest.path)
    if target.is_dir():
        raise RestoreRefused(f"{target} is a folder")
    if target.exists():
        if _same_content(target, manifest_file, manifest, length):
            return Restored(str(target), length, True)
        if not force:
            raise RestoreRefused(f"{target} exists and differs from the archived copy (use --force to replace it)")
    try:
        _write_verified(manifest_file, manifest, target)
    except OSError as exc:
        raise ArchiveError(f"{target}: cannot write the restored log ({exc.strerror or exc})") from exc
    return Restored(str(target), length, False)


def _write_verified(manifest_file: Path, manifest: Manifest, target: Path) -> None:
    """Every frame checked while it is written to a temp file; the file appears only whole."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".restoring", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in frames_of(manifest_file, manifest):
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        remove_if_present(tmp)
        raise


def _same_content(target: Path, manifest_file: Path, manifest: Manifest, length: int) -> bool:
    try:
        if target.stat().st_size != length:
            return False
        with open(target, "rb") as fh:
            if manifest.linked:
                return all(fh.read(len(chunk)) == chunk for chunk in linked_chunks(manifest_file, manifest))
            return all(digest(fh.read(f.raw_length)) == f.digest for f in manifest.frames)
    except OSError:
        return False

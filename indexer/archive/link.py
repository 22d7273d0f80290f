"""A log's archived copy as a hard link to the log itself, while the agent keeps it.

A link shares the log's inode: it takes no space and no time (no compression, no hash), and
the agent's appends show in it by themselves. When the agent deletes the log the link is the
only name left for its bytes; ``indexer.archive.seal`` then compresses it into zstd frames.
Where a link cannot be made (another file system, no permission, too many links) the archive
keeps zstd frames as it always did (``indexer.archive.writer``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from indexer.archive.manifest import ArchiveError, Manifest, link_path
from indexer.util.fileio import remove_if_present

CHUNK = 1024 * 1024


def link_is_current(manifest_file: Path, manifest: Manifest, path: str) -> bool:
    """The linked generation is the log's own inode still (nothing to do)."""
    try:
        held = os.stat(link_path(manifest_file, manifest.generation))
        live = os.stat(path)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (live.st_dev, live.st_ino) and held.st_ino == manifest.link_inode


def make_link(manifest_file: Path, generation: int, path: str) -> os.stat_result | None:
    """Hard-link the log as ``generation``; the linked inode's stat (a new link moves its change
    time), or None when no link can be made here (frames instead). A link is made whole or not
    at all, so a new name is linked directly (a cold build makes one a log: the temp name and
    the rename were two of its archive's five file operations); a name left by a crash is
    replaced through a temp name and a rename."""
    target = link_path(manifest_file, generation)
    try:
        os.link(path, target)
        return os.stat(target)
    except OSError:
        pass  # the name is taken, the shard is new, the log vanished, or no link can be made here
    tmp = target.with_name(f".{target.name}.tmp")
    remove_if_present(tmp)  # left by a crash
    try:
        try:
            os.link(path, tmp)
        except FileNotFoundError:
            if not os.path.exists(path):
                return None  # the log vanished
            target.parent.mkdir(parents=True, exist_ok=True)  # a new shard: made on demand, not stat'ed per log
            os.link(path, tmp)
    except OSError:  # EXDEV, EPERM, EMLINK, ENOTSUP: frames instead
        return None
    try:
        os.replace(tmp, target)
        return os.stat(target)
    except BaseException:
        remove_if_present(tmp)
        raise


def linked_length(manifest_file: Path, manifest: Manifest) -> int:
    source = link_path(manifest_file, manifest.generation)
    try:
        return os.stat(source).st_size
    except FileNotFoundError as exc:
        raise ArchiveError(f"{source}: the archived copy is missing") from exc
    except OSError as exc:
        raise ArchiveError(f"{source}: cannot read the archived copy ({exc.strerror or exc})") from exc


def linked_chunks(manifest_file: Path, manifest: Manifest) -> Iterator[bytes]:
    """The linked log's bytes, a chunk at a time."""
    source = link_path(manifest_file, manifest.generation)
    try:
        fh = open(source, "rb")
    except FileNotFoundError as exc:
        raise ArchiveError(f"{source}: the archived copy is missing") from exc
    except OSError as exc:
        raise ArchiveError(f"{source}: cannot read the archived copy ({exc.strerror or exc})") from exc
    with fh:
        while chunk := fh.read(CHUNK):
            yield chunk

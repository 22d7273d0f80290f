"""Reading an archived copy back, checked frame by frame against its manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import zstandard

from indexer.archive.link import linked_chunks
from indexer.archive.manifest import ArchiveError, Frame, Manifest, data_path, digest


def frames_of(manifest_file: Path, manifest: Manifest) -> Iterator[bytes]:
    """The log's bytes, one frame at a time, each checked for length and hash. Raises
    ``ArchiveError`` naming the first frame that does not match (or is missing). A linked
    generation: the link's bytes as they are."""
    if manifest.linked:
        yield from linked_chunks(manifest_file, manifest)
        return
    source = data_path(manifest_file, manifest.generation)
    decompressor = zstandard.ZstdDecompressor()
    try:
        fh = open(source, "rb")
    except FileNotFoundError as exc:
        if not manifest.frames:
            return
        raise ArchiveError(f"{source}: the archived copy is missing") from exc
    except OSError as exc:
        raise ArchiveError(f"{source}: cannot read the archived copy ({exc.strerror or exc})") from exc
    with fh:
        for number, frame in enumerate(manifest.frames, 1):
            yield checked_frame(source, number, frame, fh.read(frame.compressed_length), decompressor)


def checked_frame(source: Path, number: int, frame: Frame, compressed: bytes,
                  decompressor: zstandard.ZstdDecompressor) -> bytes:
    """Frame ``number`` (from 1) of ``source`` decompressed, or ``ArchiveError`` when its bytes
    are short or its length or hash differ from the manifest's: nothing unchecked is returned."""
    try:
        if len(compressed) != frame.compressed_length:
            raise ArchiveError("it is shorter than its manifest says")
        raw = decompressor.decompress(compressed, max_output_size=frame.raw_length)
    except (zstandard.ZstdError, ArchiveError) as exc:
        raise ArchiveError(f"{source}: the archived copy is damaged at frame {number} ({exc})") from exc
    if len(raw) != frame.raw_length or digest(raw) != frame.digest:
        raise ArchiveError(f"{source}: the archived copy is damaged at frame {number} (hash mismatch)")
    return raw


def read_all(manifest_file: Path, manifest: Manifest) -> bytes:
    return b"".join(frames_of(manifest_file, manifest))

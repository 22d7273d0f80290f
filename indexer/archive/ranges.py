"""Reading a byte range of a log's archived copy back, without reading the rest of it.

The index may keep a reference into a log (offset, length, hash) instead of a copy of, say, a
tool's output; showing it reads those bytes back here. A linked copy: one positioned read of
the link. Frames: only the frames the range touches (at most 4 MiB each, ``writer.FRAME_BYTES``)
are read and decompressed, each checked for length and hash as ``reader.frames_of`` does.
``read_ranges`` reads many ranges of one log at once (a transcript's tool output): the manifest
looked up once, each frame the ranges need read once, a link opened once and nearby ranges of it
read as one.

Checked frames are kept in a small cache (least recently used out first, ``CACHE_BYTES`` in all),
so a transcript showing 200 outputs of one sealed log decompresses each frame once. Its key
holds the data file, the generation and the frame's hash: bytes are served only for a frame
whose hash they match, so a rewritten log (a new generation) is never answered with old bytes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import zstandard

from indexer.archive.manifest import (
    ArchiveError,
    Frame,
    Manifest,
    data_path,
    find_manifest,
    link_path,
    load_manifest,
    manifest_path,
)
from indexer.archive.reader import checked_frame
from indexer.util.sized_cache import SizedCache

CACHE_BYTES = 32 * 1024 * 1024  # eight full frames; a larger one (an old single-frame copy) is not kept
NEARBY_BYTES = 64 * 1024  # ranges this close are read as one (a log's other lines between two outputs)
SPAN_BYTES = 4 * 1024 * 1024  # but no single read longer than this
MANIFESTS_KEPT = 64  # parsed manifests kept, each checked against its file's stat before use
_manifests: dict[tuple[str, str], tuple[Path, tuple[int, int, int, int], Manifest]] = {}
_manifests_lock = threading.Lock()


def read_range(root: Path, key: str, start: int, length: int) -> bytes:
    """Bytes ``[start, start + length)`` of the archived copy of the log stored as ``key``.
    Raises ``ArchiveError`` (one line) when the archive holds no copy, its data is missing or
    damaged, or the range goes beyond what the copy holds."""
    if start < 0 or length < 0:
        raise ArchiveError(f"{key}: no such byte range (start {start}, length {length})")
    manifest_file, manifest = _current_manifest(str(root), key)
    if manifest.linked:
        return _linked_range(link_path(manifest_file, manifest.generation), key, start, length)
    return _framed_range(data_path(manifest_file, manifest.generation), manifest, key, start, length)


def read_ranges(root: Path, key: str, spans: Sequence[tuple[int, int]]) -> list[bytes | None]:
    """``read_range`` for each (start, length) of one log, in the order given: None where
    ``read_range`` would raise (no copy, damaged data, a range beyond it), the rest still read."""
    try:
        manifest_file, manifest = _current_manifest(str(root), key)
    except ArchiveError:
        return [None] * len(spans)
    if manifest.linked:
        return positioned_reads(link_path(manifest_file, manifest.generation), spans)
    return _framed_ranges(data_path(manifest_file, manifest.generation), manifest, spans)


def positioned_reads(path: str | Path, spans: Sequence[tuple[int, int]]) -> list[bytes | None]:
    """Each (start, length) of the file at ``path``, None where the file does not hold all of it
    (or cannot be read): one open, reads in offset order, ranges near each other read as one."""
    found: list[bytes | None] = [None] * len(spans)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return found
    try:
        size = os.fstat(fd).st_size
        for group in _nearby(spans):
            start = spans[group[0]][0]
            data = _pread_fully(fd, max(spans[i][0] + spans[i][1] for i in group) - start, start)
            for i in group:
                at, length = spans[i][0] - start, spans[i][1]
                if spans[i][0] + length <= size and at + length <= len(data):
                    found[i] = data[at:at + length]
    except OSError:
        pass  # what was read stands; the rest is None, as a failed read_range would be
    finally:
        os.close(fd)
    return found


def _nearby(spans: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Indexes of ``spans`` by start, grouped where each starts within ``NEARBY_BYTES`` of the
    group's end and the group stays within ``SPAN_BYTES``; negative ones left out."""
    order = sorted((i for i, (start, length) in enumerate(spans) if start >= 0 and length >= 0),
                   key=lambda i: spans[i][0])
    groups: list[list[int]] = []
    first = end = 0
    for i in order:
        start, length = spans[i]
        if groups and start - end <= NEARBY_BYTES and max(end, start + length) - first <= SPAN_BYTES:
            groups[-1].append(i)
            end = max(end, start + length)
        else:
            groups.append([i])
            first, end = start, start + length
    return groups


def _current_manifest(root: str, key: str) -> tuple[Path, Manifest]:
    """``find_manifest``, parsed once while the file stays the same (inode, size, change time):
    a transcript reads hundreds of ranges of one log, and a manifest is replaced by a rename."""
    cached = _manifests.get((root, key))
    if cached is not None:
        manifest_file, signature, manifest = cached
        try:
            if _signature(os.stat(manifest_file)) == signature:
                return manifest_file, manifest
        except OSError:
            pass
    manifest_file = manifest_path(Path(root), key)
    try:
        stamp: tuple[int, int, int, int] | None = _signature(os.stat(manifest_file))
    except OSError:
        stamp = None
    manifest_file, manifest = find_manifest(Path(root), key)
    if stamp is not None:
        with _manifests_lock:
            if len(_manifests) >= MANIFESTS_KEPT:
                _manifests.pop(next(iter(_manifests)))
            _manifests[(root, key)] = (manifest_file, stamp, manifest)
    return manifest_file, manifest


def _signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def archived_log_path(root: Path, key: str) -> str | None:
    """The log's original path as its manifest records it (None: no archived copy), so a
    caller can read the live log instead. Raises ``ArchiveError`` for an unreadable manifest."""
    manifest = load_manifest(manifest_path(Path(root), key), key)
    return None if manifest is None else manifest.path


def clear_range_cache() -> None:
    """Forget every cached frame and manifest (a bench's cold read; nothing else needs it)."""
    _cache.clear()
    with _manifests_lock:
        _manifests.clear()


# -- a linked copy ------------------------------------------------------------------


def _linked_range(source: Path, key: str, start: int, length: int) -> bytes:
    """One positioned read of the link (the live log's inode); never the whole file."""
    fd = _open(source)
    try:
        size = os.fstat(fd).st_size
        data = _pread_fully(fd, length, start) if start + length <= size else b""
    except OSError as exc:
        raise _unreadable(source, exc) from exc
    finally:
        os.close(fd)
    if start + length > size:
        raise _beyond(key, start, length, size)
    if len(data) < length:  # the log was cut short since the fstat
        raise _beyond(key, start, length, start + len(data))
    return data


def _pread_fully(fd: int, length: int, offset: int) -> bytes:
    """``length`` bytes at ``offset``, fewer only at the end of the file (a short pread goes on)."""
    pieces, got = [], 0
    while got < length:
        piece = os.pread(fd, length - got, offset + got)
        if not piece:
            break
        pieces.append(piece)
        got += len(piece)
    return b"".join(pieces)


# -- a copy kept as frames ----------------------------------------------------------


@dataclass(frozen=True)
class _Placed:
    """A frame and where it sits: in the log (``raw_at``) and in the data file (``compressed_at``)."""
    number: int  # from 1, as errors name it
    frame: Frame
    raw_at: int
    compressed_at: int


def _framed_range(source: Path, manifest: Manifest, key: str, start: int, length: int) -> bytes:
    end = start + length
    if end > manifest.length:
        raise _beyond(key, start, length, manifest.length)
    touched = _frames_touching(manifest.frames, start, end)
    raws = {p.number: raw for p in touched if (raw := _cache.get(_cache_key(source, manifest, p))) is not None}
    missing = [p for p in touched if p.number not in raws]
    if missing:
        raws.update(_read_frames(source, manifest, missing))
    return b"".join(raws[p.number][max(start - p.raw_at, 0):end - p.raw_at] for p in touched)


def _framed_ranges(source: Path, manifest: Manifest, spans: Sequence[tuple[int, int]]) -> list[bytes | None]:
    """``_framed_range`` for many ranges: each frame any of them needs read (and checked) once."""
    touching = [_frames_touching(manifest.frames, start, start + length)
                if start >= 0 and length >= 0 and start + length <= manifest.length else None
                for start, length in spans]
    needed = {p.number: p for placed in touching if placed for p in placed}
    raws = {n: raw for n, p in needed.items() if (raw := _cache.get(_cache_key(source, manifest, p))) is not None}
    missing = [p for n, p in sorted(needed.items()) if n not in raws]
    if missing:
        raws.update(_read_frames_that_check(source, manifest, missing))
    found: list[bytes | None] = []
    for (start, length), placed in zip(spans, touching):
        if placed is None or any(p.number not in raws for p in placed):
            found.append(None)
        else:
            found.append(b"".join(raws[p.number][max(start - p.raw_at, 0):start + length - p.raw_at] for p in placed))
    return found


def _frames_touching(frames: list[Frame], start: int, end: int) -> list[_Placed]:
    """The frames holding any of the bytes ``[start, end)``, placed by the lengths before them."""
    touched, raw_at, compressed_at = [], 0, 0
    for number, frame in enumerate(frames, 1):
        if raw_at >= end:
            break
        if raw_at + frame.raw_length > start:
            touched.append(_Placed(number, frame, raw_at, compressed_at))
        raw_at += frame.raw_length
        compressed_at += frame.compressed_length
    return touched


def _read_frames(source: Path, manifest: Manifest, placed: list[_Placed]) -> dict[int, bytes]:
    """These frames read from the data file and checked (then cached): one open, a pread each."""
    decompressor = zstandard.ZstdDecompressor()  # one per call: the app reads from several threads
    raws: dict[int, bytes] = {}
    fd = _open(source)
    try:
        for p in placed:
            try:
                compressed = _pread_fully(fd, p.frame.compressed_length, p.compressed_at)
            except OSError as exc:
                raise _unreadable(source, exc) from exc
            raws[p.number] = checked_frame(source, p.number, p.frame, compressed, decompressor)
            _cache.put(_cache_key(source, manifest, p), raws[p.number])
    finally:
        os.close(fd)
    return raws


def _read_frames_that_check(source: Path, manifest: Manifest, placed: list[_Placed]) -> dict[int, bytes]:
    """``_read_frames``, leaving out a frame that cannot be read or fails its check (the ranges
    that need it cannot be served; the others still are). A frame at a time: one open each,
    against decompressing up to 4 MiB."""
    raws: dict[int, bytes] = {}
    for p in placed:
        try:
            raws.update(_read_frames(source, manifest, [p]))
        except ArchiveError:
            continue
    return raws


def _cache_key(source: Path, manifest: Manifest, placed: _Placed) -> tuple[str, int, str]:
    return str(source), manifest.generation, placed.frame.digest


# -- shared -------------------------------------------------------------------------


def _open(source: Path) -> int:
    try:
        return os.open(source, os.O_RDONLY)
    except FileNotFoundError as exc:
        raise ArchiveError(f"{source}: the archived copy is missing") from exc
    except OSError as exc:
        raise _unreadable(source, exc) from exc


def _unreadable(source: Path, exc: OSError) -> ArchiveError:
    return ArchiveError(f"{source}: cannot read the archived copy ({exc.strerror or exc})")


def _beyond(key: str, start: int, length: int, size: int) -> ArchiveError:
    return ArchiveError(f"{key}: bytes {start} to {start + length} are beyond the archived copy ({size} bytes)")


_cache: SizedCache[bytes] = SizedCache(CACHE_BYTES)  # checked, decompressed frames

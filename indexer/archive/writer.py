"""Keeping a log's archived copy up to date with what an index run read of it.

While the agent keeps the log, the copy is a hard link to it (``indexer.archive.link``): one
stat per run, nothing else. Where no link can be made, zstd frames, as follows.
The index reads a log from where it stopped (``indexer.ingest.prepare``); the archive takes
those same bytes as one more zstd frame (several above FRAME_BYTES, 4 MiB), so nothing is read
twice. Where the archive and the
index disagree (the archive was switched on later, was deleted, or holds bytes of a run whose
index batch rolled back) the archive catches up from the log or skips what it already has.
A log read again from its start that no longer begins with the archived bytes was rewritten:
its archive starts a new generation.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import zstandard

from indexer.archive.manifest import (
    ArchiveError,
    Frame,
    Manifest,
    data_path,
    digest,
    link_path,
    load_manifest,
    manifest_path,
    needs_manifest_file,
    save_manifest,
)
from indexer.archive.link import link_is_current, make_link
from indexer.archive.reader import read_all

LEVEL = 3  # zstd's default: ~8x on agent logs at a few hundred MB/s (bench/speed/archive_cost.py)
# A frame holds at most this many raw bytes: reading a range back (``indexer.archive.ranges``)
# decompresses only the frames it touches. zstd level 3 looks back 2 MiB at most, so 4 MiB
# frames compress as well as one frame for the whole log.
FRAME_BYTES = 4 * 1024 * 1024
COMPACT_AFTER_FRAMES = 32  # small appended frames compress poorly: recompress them as full frames
# Above this a log keeps its frames (recompressing costs too much). Compacted, a log of at most
# this size has at most 16 frames, half of COMPACT_AFTER_FRAMES: the next compaction comes 16
# appends later at the earliest, never on every append (tests/core/archive/test_archive_ranges.py checks it).
COMPACT_MAX_BYTES = 64 * 1024 * 1024

_compressor: zstandard.ZstdCompressor | None = None
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _compress(data: bytes | memoryview) -> bytes:
    global _compressor
    if _compressor is None:
        _compressor = zstandard.ZstdCompressor(level=LEVEL)
    return _compressor.compress(data)


@dataclass(frozen=True)
class ArchiveOutcome:
    archived: bool  # the archive holds the log up to what was read
    problem: str | None = None  # why not, for the run's problems
    # A new hard link moves the log's inode change time: the index keeps this one, or its next
    # run would take the log for rewritten (``indexer.ingest.writer``'s stat comparison).
    ctime_ns: int | None = None


def archive_read_bytes(root: Path, key: str, path: str, start: int, data: bytes | memoryview) -> ArchiveOutcome:
    """Record that the log ``path`` (stored as ``key``) holds ``data`` at offset ``start``.
    Never raises: an archive that cannot be written costs the archive, not the index run."""
    try:
        return ArchiveOutcome(True, ctime_ns=_archive(Path(root), key, path, start, data))
    except (OSError, ArchiveError, zstandard.ZstdError, MemoryError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return ArchiveOutcome(False, f"{key}: archive copy not updated ({reason})")


def start_archiving(root: Path, key: str, path: str, start: int, data: bytes | memoryview) -> Future[ArchiveOutcome]:
    """``archive_read_bytes`` on a thread of its own: zstd and file writes release the GIL, so the
    copy is made while the caller parses the same bytes (``bench/speed/archive_cost.py``). One
    thread: copies are made in order, one log at a time. A log kept as a hard link costs a
    stat or a link, done here: a hand-over to the thread would cost more (it waits for the GIL)."""
    try:
        linked, ctime_ns = _kept_as_link(Path(root), key, path)
        if linked:
            done: Future[ArchiveOutcome] = Future()
            done.set_result(ArchiveOutcome(True, ctime_ns=ctime_ns))
            return done
    except (OSError, ArchiveError):
        pass  # tried again on the thread, which reports it
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="archive")
    return _pool.submit(archive_read_bytes, root, key, path, start, data)


def _current_manifest(manifest_file: Path, key: str, path: str) -> Manifest | None:
    """The manifest, or None when there is none or it cannot be trusted (a new generation then)."""
    try:
        manifest = load_manifest(manifest_file, key)
    except ArchiveError:
        return None  # damaged: a new generation replaces it
    if manifest is not None and (manifest.path != path or not _data_intact(manifest_file, manifest)):
        return None
    return manifest


def _kept_as_link(root: Path, key: str, path: str) -> tuple[bool, int | None]:
    """Whether the log's copy is (now) a hard link to it: the link still current, or a new one
    made where the archive has no copy or a stale link (False: frames it is); and the log's
    change time after a new link."""
    manifest_file = manifest_path(root, key)
    manifest = _current_manifest(manifest_file, key, path)
    if manifest is not None and not manifest.linked:
        return False, None
    if manifest is not None and link_is_current(manifest_file, manifest, path):
        return True, None
    linked = _link_generation(manifest_file, manifest, key, path)
    return linked is not None, linked.st_ctime_ns if linked is not None else None


def _archive(root: Path, key: str, path: str, start: int, data: bytes | memoryview) -> int | None:
    linked, ctime_ns = _kept_as_link(root, key, path)
    if linked:
        return ctime_ns
    manifest_file = manifest_path(root, key)
    manifest = _current_manifest(manifest_file, key, path)
    stale_link = None
    if manifest is not None and manifest.linked:
        stale_link, manifest = manifest, None  # no link can be made: frames, from the whole log
    end = start + len(data)
    if manifest is not None and start > 0 and manifest.length >= start:
        if manifest.length < end:
            _append(manifest_file, manifest, data[manifest.length - start:])
        return None
    if manifest is not None and start > 0:  # the archive lags the index: catch up from the log
        _append(manifest_file, manifest, _read_range(path, manifest.length, start) + data)
        return None
    if manifest is not None and start == 0 and manifest.length <= end and _holds_prefix(manifest, data):
        _append(manifest_file, manifest, data[manifest.length:])
        return None
    prefix = _read_range(path, 0, start) if start else b""
    new_generation(manifest_file, manifest or stale_link, path, prefix + data)
    return None


def _link_generation(manifest_file: Path, old: Manifest | None, key: str, path: str) -> os.stat_result | None:
    """A new generation that is a hard link to the log (its stat); None when none can be made.
    A log's first link goes without a manifest file where the link says it all (``bare_link``)."""
    generation, replacing_damaged = _next_generation(manifest_file, old)
    linked = make_link(manifest_file, generation, path)
    if linked is None:
        return None
    if replacing_damaged or needs_manifest_file(key, path, generation):  # a damaged one is replaced
        save_manifest(manifest_file, Manifest(path, generation, [], linked.st_ino))
    _drop_previous(manifest_file, old, replacing_damaged, link_path(manifest_file, generation))
    return linked


def _data_intact(manifest_file: Path, manifest: Manifest) -> bool:
    """The compressed file holds at least what the manifest lists (a crash may leave more)."""
    if manifest.linked:
        return True  # checked by ``link_is_current``
    try:
        return data_path(manifest_file, manifest.generation).stat().st_size >= manifest.compressed_length
    except FileNotFoundError:
        return not manifest.frames


def _holds_prefix(manifest: Manifest, data: bytes | memoryview) -> bool:
    """``data`` begins with the archived bytes, frame by frame (hashes, no decompression)."""
    view, at = memoryview(data), 0
    for frame in manifest.frames:
        if digest(view[at:at + frame.raw_length]) != frame.digest:
            return False
        at += frame.raw_length
    return True


def _read_range(path: str, start: int, end: int) -> bytes:
    with open(path, "rb") as fh:
        fh.seek(start)
        data = fh.read(end - start)
    if len(data) != end - start:
        raise ArchiveError(f"{path}: shorter than what was indexed")
    return data


def _append(manifest_file: Path, manifest: Manifest, new: bytes | memoryview) -> None:
    """More frames, then the manifest that lists them: a crash between the two leaves bytes
    the manifest does not list, cut off here next time."""
    if not new:
        return
    if _compacts(manifest, len(new)):
        whole = read_all(manifest_file, manifest) + new
        new_generation(manifest_file, manifest, manifest.path, whole)
        return
    target = data_path(manifest_file, manifest.generation)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "ab") as fh:
        fh.truncate(manifest.compressed_length)
        manifest.frames += _write_frames(fh, new)
    save_manifest(manifest_file, manifest)


def _compacts(manifest: Manifest, new_length: int) -> bool:
    """Many small appended frames: the whole log recompressed as full frames, while it is
    small enough (see COMPACT_MAX_BYTES for why this cannot come round on every append)."""
    return len(manifest.frames) >= COMPACT_AFTER_FRAMES and manifest.length + new_length <= COMPACT_MAX_BYTES


def _write_frames(fh: BinaryIO, data: bytes | memoryview) -> list[Frame]:
    """``data`` written as zstd frames of at most FRAME_BYTES raw bytes each; their manifest entries."""
    view, frames = memoryview(data), []
    for at in range(0, len(view), FRAME_BYTES):
        raw = view[at:at + FRAME_BYTES]
        compressed = _compress(raw)
        fh.write(compressed)
        frames.append(Frame(len(raw), len(compressed), digest(raw)))
    return frames


def new_generation(manifest_file: Path, old: Manifest | None, path: str, data: bytes) -> None:
    """A fresh copy of the whole log as zstd frames of at most FRAME_BYTES each, complete before
    the manifest points at it (no manifest names this generation yet, so it is written in place);
    then the old generation goes. Few file operations: a cold index run makes one copy per log."""
    generation, replacing_damaged = _next_generation(manifest_file, old)
    target = data_path(manifest_file, generation)
    try:
        fh = open(target, "wb")
    except FileNotFoundError:
        target.parent.mkdir(parents=True, exist_ok=True)
        fh = open(target, "wb")
    with fh:
        frames = _write_frames(fh, data)
    save_manifest(manifest_file, Manifest(path, generation, frames))
    _drop_previous(manifest_file, old, replacing_damaged, target)


def _next_generation(manifest_file: Path, old: Manifest | None) -> tuple[int, bool]:
    """The next generation's number, and whether it replaces a damaged manifest (or a link
    without one that could not be trusted: generation 0 is then taken)."""
    replacing_damaged = old is None and (manifest_file.exists() or link_path(manifest_file, 0).exists())
    if old is not None:
        return old.generation + 1, False
    if replacing_damaged:  # keep clear of whatever the damaged manifest pointed at
        return _next_free_generation(manifest_file), True
    return 0, False


def _drop_previous(manifest_file: Path, old: Manifest | None, replacing_damaged: bool, keep: Path) -> None:
    """Once the manifest names the new generation: the old one's frames or link go."""
    if old is not None:
        data_path(manifest_file, old.generation).unlink(missing_ok=True)
        link_path(manifest_file, old.generation).unlink(missing_ok=True)
    elif replacing_damaged:
        for stale in _generation_files(manifest_file):
            if stale != keep:
                stale.unlink(missing_ok=True)


def _generation_files(manifest_file: Path) -> list[Path]:
    if not manifest_file.parent.is_dir():
        return []
    return [p for p in manifest_file.parent.glob(f"{manifest_file.stem}.*.*")
            if p.suffix in (".zst", ".link") and p.name.split(".")[1].isdigit()]


def _next_free_generation(manifest_file: Path) -> int:
    taken = [int(p.name.split(".")[1]) for p in _generation_files(manifest_file)]
    return max(taken, default=-1) + 1

"""Where a log file's archive lives and what its manifest says.

Per log file (keyed by its path as the index stores it) the archive keeps two files in
``<archive dir>/<2 hex>/<key hash>``:

- ``.<generation>.zst``: a sequence of zstd frames, one per index run that read new bytes,
  each of at most 4 MiB of raw bytes (``writer.FRAME_BYTES``: more bytes, more frames), so a
  byte range is read back by decompressing only the frames it touches (``ranges``); frames
  decompress to the log's bytes in order (zstd's own rule for concatenated frames). Copies
  made before that limit may hold one frame of any size: they read back all the same.
- ``.<generation>.link``: instead of frames, while the agent keeps the log: a hard link to it
  (same inode: no space, no time, the agent's appends show in it), sealed into frames when
  the log is deleted (``indexer.archive.seal``).
- ``.json``: the manifest, replaced atomically after each append: the original path, and per
  frame its raw length, compressed length and hash. Only what the manifest lists is trusted:
  bytes a crash left after the last listed frame are cut off by the next append.

A log's first copy, a link, has no manifest file when the log's path is its key (every path
that is UTF-8): ``.0.link`` alone says it all (generation 0, the link's inode, the path the
key's own), and ``load_manifest`` given the key reads it so. Creating that small file was most
of the archive's cost on a build of many small logs (50,068 logs: 36 -> 29 s, the same as with
no archive; ``docs/performance.md``). Any later generation writes its manifest, as sealing does.
A build from before reads such a log as not archived, and links it again with a manifest.

A rewritten or truncated log starts a new generation (a new ``.zst``), written whole before the
manifest points at it, so a crash keeps the previous copy.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.util.fileio import remove_if_present

MANIFEST_VERSION = 1
# A linked generation's manifest says 2: a build from before the links refuses it ("unknown
# version") instead of restoring its empty frame list as an empty log.
LINKED_MANIFEST_VERSION = 2


class ArchiveError(ThreadbackError):
    """An archive that cannot be read or does not match its manifest: the message says which."""
    kind = errors.NOT_FOUND


@dataclass(frozen=True)
class Frame:
    raw_length: int
    compressed_length: int
    digest: str  # SHA-256 of the frame's raw bytes, first 128 bits


@dataclass
class Manifest:
    path: str  # the log's path as the OS gave it (undecodable bytes as surrogate escapes)
    generation: int = 0
    frames: list[Frame] = field(default_factory=list)
    link_inode: int | None = None  # this generation is a hard link to the log's inode (no frames)

    @property
    def linked(self) -> bool:
        return self.link_inode is not None

    @property
    def length(self) -> int:
        """Bytes of the log the frames hold (a linked generation: see ``link.linked_length``)."""
        return sum(f.raw_length for f in self.frames)

    @property
    def compressed_length(self) -> int:
        return sum(f.compressed_length for f in self.frames)


def digest(data: bytes | memoryview) -> str:
    """SHA-256 (128 bits kept): twice blake2b's speed where the CPU has SHA instructions."""
    import hashlib  # here: a run that reads no log asks only the archive's size (~3 ms to load)

    return hashlib.sha256(data).hexdigest()[:32]


def archive_dir_for(db_path: Path) -> Path:
    """The archive beside the index: ``<data dir>/archive`` for the default index."""
    return Path(db_path).parent / "archive"


def manifest_path(root: Path, key: str) -> Path:
    import hashlib

    name = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return Path(root) / name[:2] / f"{name}.json"


def data_path(manifest_file: Path, generation: int) -> Path:
    return manifest_file.with_name(f"{manifest_file.stem}.{generation}.zst")


def link_path(manifest_file: Path, generation: int) -> Path:
    return manifest_file.with_name(f"{manifest_file.stem}.{generation}.link")


def load_manifest(manifest_file: Path, key: str | None = None) -> Manifest | None:
    """The manifest, or None when there is none. Raises ``ArchiveError`` when it is unreadable.
    ``key``: the log's key, so a first link without a manifest file is read as its manifest
    (``bare_link``); without it such a copy is not seen."""
    try:
        raw = manifest_file.read_bytes()
    except FileNotFoundError:
        return None if key is None else bare_link(manifest_file, key)
    except OSError as exc:
        raise ArchiveError(f"{manifest_file}: cannot read the archive manifest ({exc.strerror or exc})") from exc
    try:
        data = json.loads(raw)
        if data.get("version") not in (MANIFEST_VERSION, LINKED_MANIFEST_VERSION):
            raise ValueError(f"unknown version {data.get('version')!r}")
        frames = [Frame(int(f[0]), int(f[1]), str(f[2])) for f in data["frames"]]
        link = data.get("link")
        return Manifest(str(data["path"]), int(data["generation"]), frames, None if link is None else int(link))
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise ArchiveError(f"{manifest_file}: the archive manifest is damaged ({exc})") from exc


def bare_link(manifest_file: Path, key: str) -> Manifest | None:
    """The manifest a first link without a manifest file stands for (generation 0, the link's
    inode, the key as the path); None when there is no such link."""
    try:
        return Manifest(key, 0, [], os.stat(link_path(manifest_file, 0)).st_ino)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ArchiveError(f"{link_path(manifest_file, 0)}: cannot read the archived copy ({exc.strerror or exc})") from exc


def needs_manifest_file(key: str, path: str, generation: int) -> bool:
    """Whether a new linked generation must be described in a manifest file: all but a log's
    first link where its path is its key (``bare_link`` reads that one from the link)."""
    return generation != 0 or key != path


def find_manifest(root: Path, key: str) -> tuple[Path, Manifest]:
    """The manifest of the log stored as ``key``; ``ArchiveError`` when the archive holds no copy."""
    manifest_file = manifest_path(root, key)
    manifest = load_manifest(manifest_file, key)
    if manifest is None:
        raise ArchiveError(f"no archived copy of {key} (the archive is in {root})")
    return manifest_file, manifest


def save_manifest(manifest_file: Path, manifest: Manifest) -> None:
    """Replace the manifest atomically (temp file + rename). ASCII JSON keeps a path's
    surrogate escapes exact."""
    fields = {
        "version": LINKED_MANIFEST_VERSION if manifest.linked else MANIFEST_VERSION,
        "path": manifest.path,
        "generation": manifest.generation,
        "frames": [[f.raw_length, f.compressed_length, f.digest] for f in manifest.frames],
    }
    if manifest.linked:
        fields["link"] = manifest.link_inode
    body = json.dumps(fields).encode("ascii")
    # One index run writes the archive at a time (the index lock): a fixed temp name will do.
    tmp = manifest_file.with_name(f".{manifest_file.name}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(body)
        os.replace(tmp, manifest_file)
    except BaseException:
        remove_if_present(tmp)
        raise


@dataclass(frozen=True)
class ArchiveSize:
    files: int  # log files with an archived copy
    bytes: int  # what their copies take on disk (a link shared with the live log: nothing)
    lone_links: tuple[Path, ...] = ()  # manifests of links the log no longer shares (walks only)


def archive_size(root: Path) -> ArchiveSize:
    """What the archive takes: a directory walk and a stat per copy, no file read (the
    ``index`` summary shows it after every run). A hard link still shared with the live log
    (``st_nlink`` > 1) takes no space of its own; alone, its size."""
    files = size = 0
    lone: list[Path] = []
    try:
        shards = [e.path for e in os.scandir(root) if e.is_dir()]
    except OSError:
        return ArchiveSize(0, 0)
    for shard in shards:
        try:
            entries = list(os.scandir(shard))
        except OSError:
            continue
        names = {entry.name for entry in entries}
        for entry in entries:
            if entry.name.endswith(".zst"):
                try:
                    size += entry.stat().st_size
                except OSError:
                    continue
            elif entry.name.endswith(".link"):
                try:
                    st = entry.stat()
                except OSError:
                    continue
                stem, _, rest = entry.name.partition(".")
                if rest == "0.link" and f"{stem}.json" not in names:
                    files += 1  # a first link without a manifest file (``bare_link``)
                if st.st_nlink == 1:  # the log is gone: sealed by the caller (indexer.archive.seal)
                    size += st.st_size
                    lone.append(Path(entry.path).with_name(stem + ".json"))
            elif entry.name.endswith(".json"):
                files += 1
    return ArchiveSize(files, size, tuple(lone))


SIZE_CACHE = "size.json"


def forget_size(root: Path) -> None:
    """Drop the remembered size before the archive changes under it: a run killed midway then
    leaves no stale figure (nor a stale list of lone links) for the next one to trust."""
    try:
        (Path(root) / SIZE_CACHE).unlink(missing_ok=True)
    except OSError:
        pass  # a read-only archive: nothing will change under the figure either


def archive_size_cached(root: Path, *, refresh: bool, max_age: float | None = None) -> ArchiveSize:
    """``archive_size``, remembered in ``<archive>/size.json`` so a run that changed nothing
    (50,000 logs: 50,000 stats) reads one small file instead; ``refresh`` walks again, and so
    does a figure older than ``max_age`` seconds."""
    cache = Path(root) / SIZE_CACHE
    if not refresh:
        try:
            if max_age is not None and time.time() - cache.stat().st_mtime > max_age:
                raise ValueError("walked again")
            data = json.loads(cache.read_bytes())
            lone = tuple(Path(root) / str(name) for name in data.get("lone", []))
            return ArchiveSize(int(data["files"]), int(data["bytes"]), lone)
        except (OSError, ValueError, KeyError, TypeError):
            pass
    size = archive_size(root)
    if size.files:
        try:
            tmp = cache.with_name(".size.json.tmp")
            lone_names = [str(p.relative_to(root)) for p in size.lone_links]  # sealed once the archive is on
            tmp.write_text(json.dumps({"files": size.files, "bytes": size.bytes, "lone": lone_names}),
                           encoding="ascii")
            os.replace(tmp, cache)
        except OSError:
            pass  # a read-only archive: walked again next time
    return size

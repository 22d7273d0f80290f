"""Byte ranges read back from a log's archived copy (``indexer.archive.ranges``): from the hard
link while the agent keeps the log, from only the zstd frames a range touches once it is sealed
(frames of at most 4 MiB), checked against their hashes, cached without ever serving old bytes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import indexer.archive.ranges as ranges
import indexer.archive.writer as writer
from indexer.archive import ArchiveError, archive_read_bytes, archived_log_path, read_range, restore_log
from indexer.archive.manifest import data_path, load_manifest, manifest_path
from indexer.archive.reader import read_all
from indexer.util.sized_cache import SizedCache
from indexer.archive.seal import seal_links

from agent_logs import claude_session
from test_archive import index_logs

SMALL_FRAME = 4096


def log_text(lines: int) -> bytes:
    """Lines that all differ, so a range taken from the wrong place cannot match."""
    return b"".join(json.dumps({"n": i, "text": "output " * (i % 37), "ok": i % 3 == 0}).encode() + b"\n"
                    for i in range(lines))


def archived(tmp_path: Path, data: bytes, name: str = "s1.jsonl") -> tuple[Path, str, Path]:
    """``data`` written as a log and archived as an index run would: (archive root, key, log)."""
    log = tmp_path / "logs" / name
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(data)
    root = tmp_path / "archive"
    outcome = archive_read_bytes(root, str(log), str(log), 0, data)
    assert outcome.archived, outcome.problem
    return root, str(log), log


def sealed(tmp_path: Path, data: bytes) -> tuple[Path, str]:
    """An archived copy whose log was deleted: sealed into frames. (archive root, key)."""
    root, key, log = archived(tmp_path, data)
    assert load_manifest(manifest_path(root, key), key).linked
    log.unlink()
    assert seal_links(root, [key]) == []
    return root, key


@pytest.fixture
def small_frames(monkeypatch):
    """Frames of 4 KB instead of 4 MiB: many frames from a small log."""
    monkeypatch.setattr(writer, "FRAME_BYTES", SMALL_FRAME)


@pytest.fixture
def decompressed(monkeypatch):
    """The numbers of the frames ``read_range`` decompresses, in order."""
    numbers: list[int] = []
    real = ranges.checked_frame

    def counting(source, number, *args):
        numbers.append(number)
        return real(source, number, *args)

    monkeypatch.setattr(ranges, "checked_frame", counting)
    return numbers


def damage(root: Path, key: str, frame_number: int) -> None:
    """Invert 16 bytes in the middle of one frame's compressed bytes."""
    mf = manifest_path(root, key)
    manifest = load_manifest(mf)
    frame = manifest.frames[frame_number - 1]
    at = sum(f.compressed_length for f in manifest.frames[:frame_number - 1]) + frame.compressed_length // 2
    with open(data_path(mf, manifest.generation), "r+b") as fh:
        fh.seek(at)
        chunk = fh.read(16)
        fh.seek(at)
        fh.write(bytes(b ^ 0xFF for b in chunk))


def assert_one_line(exc: pytest.ExceptionInfo, *words: str) -> None:
    message = str(exc.value)
    assert "\n" not in message and all(w in message for w in words), message


def test_a_range_of_a_linked_copy_is_read_from_the_link(tmp_path):
    db, logs = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(logs, "s1", "demo", ["first question", "an answer 漢字 ✓", "more"])
    index_logs(db, logs)
    root, key = tmp_path / "archive", str(log)  # the key: the log's path as the index stores it
    assert load_manifest(manifest_path(root, key), key).linked
    original = log.read_bytes()
    assert read_range(root, key, 17, 60) == original[17:77]
    assert read_range(root, key, 0, len(original)) == original
    assert read_range(root, key, len(original), 0) == b""
    assert archived_log_path(root, key) == str(log)
    log.unlink()  # not sealed yet: the link is the only name left, and is read
    assert read_range(root, key, len(original) - 9, 9) == original[-9:]


def test_a_sealed_copy_reads_ranges_from_only_the_frames_they_touch(tmp_path, small_frames, decompressed):
    data = log_text(2000)
    root, key = sealed(tmp_path, data)
    manifest = load_manifest(manifest_path(root, key), key)
    assert len(manifest.frames) == -(-len(data) // SMALL_FRAME) > 10
    assert all(f.raw_length == SMALL_FRAME for f in manifest.frames[:-1])
    assert read_range(root, key, 3 * SMALL_FRAME + 100, 50) == data[3 * SMALL_FRAME + 100:3 * SMALL_FRAME + 150]
    assert decompressed == [4]
    spanning = (5 * SMALL_FRAME - 30, 70)  # the end of frame 5 and the start of frame 6
    assert read_range(root, key, *spanning) == data[spanning[0]:sum(spanning)]
    assert decompressed == [4, 5, 6]
    across = (7 * SMALL_FRAME - 1, 2 * SMALL_FRAME + 2)  # the last byte of 7, all of 8, the first two of 10
    assert read_range(root, key, *across) == data[across[0]:sum(across)]
    assert decompressed == [4, 5, 6, 7, 8, 9, 10]
    assert read_range(root, key, 0, len(data)) == data
    assert read_range(root, key, len(data) - 5, 5) == data[-5:]
    decompressed.clear()
    assert read_range(root, key, 5 * SMALL_FRAME + 1, 10) == data[5 * SMALL_FRAME + 1:5 * SMALL_FRAME + 11]
    assert decompressed == []  # frame 6 again: from the cache


def test_a_large_log_is_sealed_as_4_mib_frames_and_reads_back(tmp_path):
    data = log_text(90_000)
    assert len(data) > 2 * writer.FRAME_BYTES
    root, key = sealed(tmp_path, data)
    manifest = load_manifest(manifest_path(root, key), key)
    sizes = [f.raw_length for f in manifest.frames]
    assert writer.FRAME_BYTES == 4 * 1024 * 1024 and sizes == [writer.FRAME_BYTES] * (len(sizes) - 1) + [sizes[-1]]
    assert len(sizes) == -(-len(data) // writer.FRAME_BYTES) >= 3
    boundary = writer.FRAME_BYTES
    assert read_range(root, key, boundary - 1000, 2000) == data[boundary - 1000:boundary + 1000]
    assert read_all(manifest_path(root, key), manifest) == data
    restored = restore_log(root, key, to=str(tmp_path / "back.jsonl"))
    assert restored.bytes == len(data) and (tmp_path / "back.jsonl").read_bytes() == data


def test_a_damaged_frame_is_an_archive_error_cached_or_not(tmp_path, small_frames):
    data = log_text(1000)
    root, key = sealed(tmp_path, data)
    damage(root, key, 2)
    with pytest.raises(ArchiveError) as exc:  # the first read: nothing cached could hide it
        read_range(root, key, SMALL_FRAME + 10, 10)
    assert_one_line(exc, "damaged at frame 2")
    assert read_range(root, key, 10, 10) == data[10:20]  # frame 1 is whole, and now cached
    damage(root, key, 1)
    assert read_range(root, key, 30, 10) == data[30:40]  # its checked bytes, from the cache
    with pytest.raises(ArchiveError) as exc:  # a range over frames 1 and 2: frame 2 is still damaged
        read_range(root, key, SMALL_FRAME - 5, 10)
    assert_one_line(exc, "damaged at frame 2")


def test_missing_or_short_data_is_an_archive_error(tmp_path, small_frames):
    data = log_text(500)
    root, key = sealed(tmp_path, data)
    mf = manifest_path(root, key)
    source = data_path(mf, load_manifest(mf).generation)
    with open(source, "r+b") as fh:
        fh.truncate(source.stat().st_size - 3)
    with pytest.raises(ArchiveError) as exc:
        read_range(root, key, len(data) - 10, 10)
    assert_one_line(exc, "shorter than its manifest says")
    source.unlink()
    with pytest.raises(ArchiveError) as exc:
        read_range(root, key, len(data) - 10, 10)
    assert_one_line(exc, "is missing")


def test_a_range_past_the_end_is_an_archive_error(tmp_path, small_frames):
    data = log_text(500)
    root, key, log = archived(tmp_path, data)
    for start, length in ((len(data) - 4, 5), (len(data) + 1, 0), (-1, 3), (0, -1)):
        with pytest.raises(ArchiveError) as exc:  # linked
            read_range(root, key, start, length)
        assert_one_line(exc, key)
    log.unlink()
    seal_links(root, [key])
    assert not load_manifest(manifest_path(root, key), key).linked
    for start, length in ((len(data) - 4, 5), (len(data) + 1, 0), (-1, 3)):
        with pytest.raises(ArchiveError) as exc:  # sealed
            read_range(root, key, start, length)
        assert_one_line(exc, key)
    with pytest.raises(ArchiveError) as exc:
        read_range(root, key, len(data) - 4, 5)
    assert_one_line(exc, f"beyond the archived copy ({len(data)} bytes)")


def test_after_a_rewrite_a_range_reads_the_new_bytes_not_cached_old_ones(tmp_path, small_frames, frames_only):
    old = log_text(800)
    new = old.replace(b"output", b"OUTPUT")
    assert len(new) == len(old) and new != old
    root, key, log = archived(tmp_path, old)
    generation = load_manifest(manifest_path(root, key), key).generation
    assert read_range(root, key, 2 * SMALL_FRAME, 500) == old[2 * SMALL_FRAME:2 * SMALL_FRAME + 500]  # cached
    log.write_bytes(new)
    assert archive_read_bytes(root, key, str(log), 0, new).archived  # read again from its start
    assert load_manifest(manifest_path(root, key), key).generation == generation + 1
    assert read_range(root, key, 2 * SMALL_FRAME, 500) == new[2 * SMALL_FRAME:2 * SMALL_FRAME + 500]
    shutil.rmtree(root)  # the archive deleted and made again: generation 0, the same file names as before
    log.write_bytes(old)
    assert archive_read_bytes(root, key, str(log), 0, old).archived
    assert load_manifest(manifest_path(root, key), key).generation == generation
    assert read_range(root, key, 2 * SMALL_FRAME, 500) == old[2 * SMALL_FRAME:2 * SMALL_FRAME + 500]
    shutil.rmtree(root)
    log.write_bytes(new)
    assert archive_read_bytes(root, key, str(log), 0, new).archived
    assert read_range(root, key, 2 * SMALL_FRAME, 500) == new[2 * SMALL_FRAME:2 * SMALL_FRAME + 500]


def test_no_archived_copy_is_an_archive_error(tmp_path):
    root = tmp_path / "archive"
    with pytest.raises(ArchiveError) as exc:
        read_range(root, "/nowhere/s9.jsonl", 0, 10)
    assert_one_line(exc, "no archived copy of /nowhere/s9.jsonl")
    assert archived_log_path(root, "/nowhere/s9.jsonl") is None


def test_compaction_makes_full_frames_and_waits_as_many_appends_again(tmp_path, frames_only, monkeypatch):
    """Small appended frames are recompressed as full frames, and the compacted log has few
    enough frames that the next compaction is many appends away, never on every append."""
    assert -(-writer.COMPACT_MAX_BYTES // writer.FRAME_BYTES) <= writer.COMPACT_AFTER_FRAMES // 2
    monkeypatch.setattr(writer, "FRAME_BYTES", 1024)
    monkeypatch.setattr(writer, "COMPACT_MAX_BYTES", 16 * 1024)  # 16 full frames, as with the real figures
    data = log_text(400)[:16 * 1024]  # compacted up to the end
    root, key, log = archived(tmp_path, data[:100])
    compacted_at: list[int] = []
    real = writer.new_generation
    monkeypatch.setattr(writer, "new_generation", lambda *a: (compacted_at.append(appends), real(*a)))
    appends, at = 0, 100
    while at < len(data):
        piece = data[at:at + 100]
        assert archive_read_bytes(root, key, str(log), at, piece).archived
        at, appends = at + len(piece), appends + 1
        frames = load_manifest(manifest_path(root, key), key).frames
        assert all(f.raw_length <= 1024 for f in frames) and len(frames) <= writer.COMPACT_AFTER_FRAMES
    assert len(compacted_at) >= 2 and all(b - a >= 16 for a, b in zip(compacted_at, compacted_at[1:]))
    assert read_range(root, key, 0, len(data)) == data


def test_an_old_single_frame_copy_reads_back_and_takes_appends(tmp_path, frames_only, monkeypatch):
    data = log_text(60_000)
    monkeypatch.setattr(writer, "FRAME_BYTES", 1 << 40)  # as copies were made before the 4 MiB frames
    root, key, log = archived(tmp_path, data)
    assert len(load_manifest(manifest_path(root, key), key).frames) == 1
    monkeypatch.undo()
    more = b'{"appended": true}\n'
    assert archive_read_bytes(root, key, str(log), len(data), more).archived
    assert [f.raw_length for f in load_manifest(manifest_path(root, key), key).frames] == [len(data), len(more)]
    assert read_range(root, key, len(data) - 20, 30) == (data + more)[len(data) - 20:len(data) + 10]
    assert restore_log(root, key, to=str(tmp_path / "back.jsonl")).bytes == len(data) + len(more)
    assert (tmp_path / "back.jsonl").read_bytes() == data + more


def test_the_frame_cache_keeps_to_its_bytes_dropping_the_least_recently_used():
    cache = SizedCache(limit=300)
    for name in "abc":
        cache.put((name, 0, name), name.encode() * 100)
    assert cache.get(("a", 0, "a")) == b"a" * 100  # now the most recently used
    cache.put(("d", 0, "d"), b"d" * 100)
    assert cache.get(("b", 0, "b")) is None and cache.get(("a", 0, "a")) is not None
    cache.put(("e", 0, "e"), b"e" * 301)  # bigger than the whole cache: not kept, nothing dropped
    assert cache.get(("e", 0, "e")) is None and cache.get(("c", 0, "c")) is not None

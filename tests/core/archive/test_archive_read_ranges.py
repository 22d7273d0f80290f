"""Many byte ranges of one log read back together (``indexer.archive.ranges.read_ranges``, what
a transcript's tool output needs): each range exactly what ``read_range`` gives alone, None
where that raises, a damaged frame costing only the ranges inside it."""

from __future__ import annotations

import pytest

import indexer.archive.ranges as ranges
from indexer.archive import ArchiveError, read_range, read_ranges
from indexer.archive.manifest import load_manifest, manifest_path
from indexer.archive.ranges import positioned_reads

from test_archive_ranges import SMALL_FRAME, archived, damage, log_text, sealed, small_frames  # noqa: F401


def alone(root, key, start: int, length: int) -> bytes | None:
    """``read_range`` from a cold cache, None for what it refuses."""
    ranges.clear_range_cache()
    try:
        return read_range(root, key, start, length)
    except ArchiveError:
        return None


def spans_over(size: int) -> list[tuple[int, int]]:
    """Unsorted, overlapping, repeated, empty, beyond the end, negative, across frames."""
    return [(size - 9, 9), (17, 60), (0, 0), (5 * SMALL_FRAME + 1, 10), (17, 60), (SMALL_FRAME - 5, 10),
            (size - 4, 5), (size, 0), (size + 10, 0), (-1, 5), (3 * SMALL_FRAME, 2 * SMALL_FRAME), (40, 30),
            (0, size), (size // 2, 3000), (size - 1000, 1000)]


@pytest.mark.parametrize("nearby", [ranges.NEARBY_BYTES, 0])
@pytest.mark.parametrize("copy", ["linked", "frames"])
def test_ranges_read_together_are_what_each_read_alone_gives(tmp_path, small_frames, monkeypatch, copy, nearby):
    monkeypatch.setattr(ranges, "NEARBY_BYTES", nearby)  # 0: ranges are read apart, not as one
    data = log_text(600)
    if copy == "linked":
        root, key, _ = archived(tmp_path, data)
    else:
        root, key = sealed(tmp_path, data)
    spans = spans_over(len(data))
    expected = [alone(root, key, *span) for span in spans]
    assert expected[1] == data[17:77] and expected[12] == data and expected[6] is None and expected[9] is None
    ranges.clear_range_cache()
    assert read_ranges(root, key, spans) == expected
    assert read_ranges(root, key, spans) == expected  # again, from the frame cache


def test_a_damaged_frame_costs_only_the_ranges_inside_it(tmp_path, small_frames):
    data = log_text(600)
    root, key = sealed(tmp_path, data)
    damage(root, key, 3)
    frames = load_manifest(manifest_path(root, key), key).frames
    third = sum(f.raw_length for f in frames[:2])  # where frame 3 starts in the log
    spans = spans_over(len(data)) + [(third + 10, 20), (third - 10, 20), (third - 30, 20)]
    expected = [alone(root, key, *span) for span in spans]
    assert expected[-3] is None and expected[-2] is None and expected[-1] == data[third - 30:third - 10]
    assert expected[11] == data[40:70]
    ranges.clear_range_cache()
    assert read_ranges(root, key, spans) == expected


def test_no_copy_gives_nothing_and_a_file_is_read_in_one_open(tmp_path, monkeypatch):
    assert read_ranges(tmp_path / "archive", "/nowhere/s9.jsonl", [(0, 10), (5, 5)]) == [None, None]
    log = tmp_path / "log.jsonl"
    log.write_bytes(log_text(200))
    data = log.read_bytes()
    opened: list[str] = []
    real_open = ranges.os.open
    monkeypatch.setattr(ranges.os, "open", lambda path, *a: (opened.append(path), real_open(path, *a))[1])
    spans = [(300, 40), (10, 20), (len(data) - 5, 10), (len(data), 0)]
    assert positioned_reads(log, spans) == [data[300:340], data[10:30], None, b""]
    assert len(opened) == 1
    assert positioned_reads(tmp_path / "gone.jsonl", spans) == [None] * 4

"""What reading a 2 KB range back from a sealed archived copy costs. Prints figures; asserts nothing.

    python bench/speed/archive_ranges.py                 # a 50 MB synthetic log
    python bench/speed/archive_ranges.py --size-mb 200 --repeat 9

The log is sealed twice: as one zstd frame (as copies were made before ``writer.FRAME_BYTES``)
and as frames of at most 4 MiB. For each: the time to read 2 KB from its middle cold (the frame
cache emptied before each read; the data file is in the OS page cache, as right after sealing)
and cached (the same frames read again), the time to read 200 ranges spread over the log from a
cold cache (a transcript of 200 tool outputs), the sealing time and the bytes on disk. A frame
larger than the cache (``ranges.CACHE_BYTES``, 32 MiB), as the one-frame copy's, is never kept,
so its "cached" reads decompress it again. A hard link (a live log's copy) is timed too. The log
is JSON lines of random words and hex ids: about 4.7x smaller compressed, less than real agent
logs (about 8x, bench/speed/archive_cost.py).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import indexer.archive.writer as writer  # noqa: E402
from indexer.archive import archive_read_bytes, read_range  # noqa: E402
from indexer.archive.manifest import data_path, load_manifest, manifest_path  # noqa: E402
from indexer.archive.ranges import clear_range_cache  # noqa: E402

RANGE = 2048
WORDS = ("the file was read and the test passed error warning import def class return self value "
         "index archive frame manifest range offset length digest build run tool output result").split()


def synthetic_log(size: int, seed: int = 7) -> bytes:
    """JSON lines like an agent's: a turn with tool output of random words and ids."""
    rng, lines, total, n = random.Random(seed), [], 0, 0
    while total < size:
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 400)))
        line = json.dumps({"type": "tool_result", "uuid": f"{rng.getrandbits(128):032x}", "n": n,
                           "content": text, "exit": rng.randint(0, 2)}).encode() + b"\n"
        lines.append(line)
        total, n = total + len(line), n + 1
    return b"".join(lines)[:size]


def seal(scratch: Path, name: str, data: bytes, frame_bytes: int) -> tuple[Path, str, float]:
    """``data`` archived as frames of at most ``frame_bytes``: (archive root, key, seconds)."""
    root = scratch / name
    shutil.rmtree(root, ignore_errors=True)
    key = str(scratch / f"{name}.jsonl")
    saved = writer.FRAME_BYTES
    writer.FRAME_BYTES = frame_bytes
    try:
        started = time.perf_counter()
        writer.new_generation(manifest_path(root, key), None, key, data)
        return root, key, time.perf_counter() - started
    finally:
        writer.FRAME_BYTES = saved


def timed(read, repeat: int, *, cold: bool) -> float:
    """The median seconds of ``read()``; a cold read empties the frame cache first."""
    times = []
    for _ in range(repeat):
        if cold:
            clear_range_cache()
        started = time.perf_counter()
        read()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def spread_reads(root: Path, key: str, size: int, count: int = 200) -> None:
    for i in range(count):
        read_range(root, key, (size - RANGE) * i // count, RANGE)


def report(label: str, root: Path, key: str, data: bytes, seal_s: float | None, repeat: int) -> None:
    middle = len(data) // 2 - RANGE // 2
    assert read_range(root, key, middle, RANGE) == data[middle:middle + RANGE]
    cold = timed(lambda: read_range(root, key, middle, RANGE), repeat, cold=True)
    read_range(root, key, middle, RANGE)
    cached = timed(lambda: read_range(root, key, middle, RANGE), repeat * 20, cold=False)
    spread = timed(lambda: spread_reads(root, key, len(data)), 1, cold=True)  # one frame: 200 decompressions
    manifest = load_manifest(manifest_path(root, key))
    line = f"{label}: 2 KB from the middle {cold * 1e3:8.2f} ms cold, {cached * 1e3:8.3f} ms cached; " \
           f"200 ranges over the log {spread * 1e3:8.1f} ms"
    if not manifest.linked:
        on_disk = data_path(manifest_path(root, key), manifest.generation).stat().st_size
        line += f"; {len(manifest.frames)} frame(s), {on_disk / 1e6:.2f} MB on disk " \
                f"({len(data) / on_disk:.2f}x), sealed in {seal_s:.2f} s"
    print(line, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=int, default=50, help="the synthetic log's size (default 50)")
    ap.add_argument("--repeat", type=int, default=7, help="timed reads per figure (the median is shown)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/threadback-archive-ranges-bench"))
    args = ap.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    data = synthetic_log(args.size_mb * 1_000_000)
    print(f"a {len(data) / 1e6:.0f} MB synthetic log; reads of {RANGE} bytes; medians of {args.repeat}", flush=True)
    for label, frame_bytes in (("one frame      ", 1 << 40), ("4 MiB frames   ", writer.FRAME_BYTES)):
        root, key, seal_s = seal(args.out, label.split()[0], data, frame_bytes)
        report(label, root, key, data, seal_s, args.repeat)
    log = args.out / "live.jsonl"
    log.write_bytes(data)
    outcome = archive_read_bytes(args.out / "linked", str(log), str(log), 0, data)
    if outcome.archived and load_manifest(manifest_path(args.out / "linked", str(log))).linked:
        report("a hard link    ", args.out / "linked", str(log), data, None, args.repeat)
    shutil.rmtree(args.out, ignore_errors=True)


if __name__ == "__main__":
    main()

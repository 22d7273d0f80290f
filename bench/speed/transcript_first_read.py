"""What opening a transcript costs the first time, its tool output kept as references into its
log. Prints figures; asserts nothing.

    python bench/speed/transcript_first_read.py                      # 60 sessions of ~60 tool outputs
    python bench/speed/transcript_first_read.py --keep --rounds 3    # reuse the built trees

Two trees are generated as ``bench_index.py`` does (Claude Code logs, ~70% of bytes in tool
output) and indexed with the archive on: in ``live/`` the logs stay, so references are read
through the archive's hard links; in ``sealed/`` the logs are deleted after indexing and a
second run seals their copies into zstd frames, so references are read from the frames; in
``packed/`` the archive is off, so tool output is kept packed in the index (the floor). Each
transcript is then read with every cache emptied first (texts read back, frames, manifests) on
a connection opened for it (as a fresh process would), and read again on that connection (as
the app does at each new line of a live session). The texts' digest is printed so two
checkouts can be shown to read the same; run this file from each checkout, interleaved, on the
same ``--out`` (``--keep``).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.speed.bench_index import claude_session  # noqa: E402
from indexer import Index, only_roots  # noqa: E402
from indexer.archive.ranges import clear_range_cache  # noqa: E402
from indexer.store.log_ref_reader import forget_texts_read  # noqa: E402
from indexer.store.packing import UNREADABLE  # noqa: E402

BYTES_PER_OUTPUT = 5_100  # a turn of bench_index.claude_session: prompt, reply, call, ~2.9 KB output


def build(tree: Path, sessions: int, outputs: int, *, delete_logs: bool, archive: bool) -> None:
    shutil.rmtree(tree, ignore_errors=True)
    rng, logs = random.Random(7), tree / "logs"
    for n in range(sessions):
        sid = f"{n:08x}-0000-4000-8000-{n:012x}"
        folder = logs / f"-home-dev-proj{n % 6}"
        folder.mkdir(parents=True, exist_ok=True)
        data = claude_session(rng, sid, f"/home/dev/proj{n % 6}", outputs * BYTES_PER_OUTPUT, 1767225600.0 + n * 600)
        (folder / f"{sid}.jsonl").write_bytes(data)
    roots = only_roots({"claude-code": [logs]})
    with Index(tree / "index.sqlite3") as index:
        index.update(roots, archive=archive)
        if delete_logs:
            shutil.rmtree(logs)
            logs.mkdir()
            index.update(roots, archive=True)  # the logs are gone: their linked copies are sealed


def measure(db: Path) -> tuple[list[float], list[float], int, int, str]:
    """(first reads, second reads) in seconds per transcript, references, placeholders, digest."""
    with Index(db) as index:
        ids = [s.id for s in index.sessions(limit=None)]
        index.messages(ids[0])  # load the archive code once: a process pays that once, not per transcript
    first, again, refs, placeholders, digest = [], [], 0, 0, hashlib.sha256()
    for sid in ids:
        forget_texts_read()
        clear_range_cache()
        with Index(db) as index:
            index.conn.execute("SELECT 1").fetchone()  # the connection is open before timing starts
            started = time.perf_counter()
            messages = index.messages(sid)
            first.append(time.perf_counter() - started)
            started = time.perf_counter()
            index.messages(sid)
            again.append(time.perf_counter() - started)
            refs += index.conn.execute(
                "SELECT count(*) FROM messages WHERE session_rowid = ? AND substr(text, 1, 4) = X'54425201'",
                (sid,)).fetchone()[0]
        for m in messages:
            digest.update(m.text.encode("utf-8", "surrogatepass") + b"\0")
            placeholders += m.text.startswith(UNREADABLE)
    return first, again, refs, placeholders, digest.hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=60)
    ap.add_argument("--outputs", type=int, default=60, help="tool outputs per session, about")
    ap.add_argument("--rounds", type=int, default=1, help="times every transcript is read (each round printed)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/threadback-transcript-bench"))
    ap.add_argument("--keep", action="store_true", help="reuse the trees built by an earlier run")
    args = ap.parse_args()
    trees = (("live", "logs kept (hard links)", False, True), ("sealed", "logs deleted (zstd frames)", True, True),
             ("packed", "archive off (packed copies)", False, False))
    for name, _, delete_logs, archive in trees:
        if not (args.keep and (args.out / name / "index.sqlite3").exists()):
            started = time.perf_counter()
            build(args.out / name, args.sessions, args.outputs, delete_logs=delete_logs, archive=archive)
            print(f"built {name}/ in {time.perf_counter() - started:.1f} s", flush=True)
    for round_ in range(1, args.rounds + 1):
        for name, how, _, _ in trees:
            first, again, refs, placeholders, digest = measure(args.out / name / "index.sqlite3")
            print(f"[{round_}] {name:6} {how:28}: {len(first)} transcripts, {refs / len(first):.0f} references each;"
                  f" first read median {statistics.median(first) * 1e3:6.2f} ms, slowest {max(first) * 1e3:6.2f} ms;"
                  f" again median {statistics.median(again) * 1e3:5.2f} ms; {placeholders} placeholders;"
                  f" texts {digest}", flush=True)


if __name__ == "__main__":
    main()

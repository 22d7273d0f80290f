"""What the archive of log files costs: space and cold-index time. Prints figures; asserts nothing.

    python bench/speed/archive_cost.py                      # the shared corpus and a ~1 GB generated tree
    python bench/speed/archive_cost.py --size-mb 200 --pairs 3
    python bench/speed/archive_cost.py --skip-generated     # the corpus only

Space: archive bytes on disk / log bytes, while the logs live (hard links: nothing where a link
can be made) and once every copy is sealed into zstd frames, as when the agent deletes its logs
(the sealing is timed too; it is paid at deletion, not in the build). Time: cold index runs
with and without the archive, paired (the order alternates from pair to pair, since this machine's speed drifts by tens of
percent over minutes), the overhead taken per pair. Target: at most +10% on a cold build.
The generated tree (bench/speed/bench_index.py's generator) is random words from a small
vocabulary: it compresses differently from real logs, which the corpus figure shows.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.speed.bench_index import generate  # noqa: E402
from indexer import Index, only_roots  # noqa: E402
from indexer.archive import archive_dir_for, archive_size  # noqa: E402
from indexer.archive.seal import seal_copies  # noqa: E402
from indexer.config import SourceRoots  # noqa: E402
from indexer.store.connection import remove_index_files  # noqa: E402

CORPUS = Path("/work/shared/corpus")


def corpus_roots(corpus: Path) -> SourceRoots:
    return only_roots({"claude-code": [corpus / "claude-code" / "projects"], "codex": [corpus / "codex" / "sessions"],
                       "pi": [corpus / "pi"]})


def log_bytes(roots: SourceRoots) -> int:
    return sum(p.stat().st_size for root in roots.all_paths() for p in root.rglob("*") if p.is_file())


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the index helper process)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def cold_run(db: Path, roots: SourceRoots, archive: bool) -> tuple[float, float, int, int]:
    """One cold build from nothing: (seconds, CPU seconds, archive bytes, archived files)."""
    remove_index_files(db)
    shutil.rmtree(archive_dir_for(db), ignore_errors=True)
    with Index(db) as index:
        started, cpu = time.perf_counter(), cpu_seconds()
        summary = index.update(roots, archive=archive)
        seconds = time.perf_counter() - started
    return seconds, cpu_seconds() - cpu, summary.archive_bytes, summary.archive_files


def seal_all(db: Path) -> tuple[float, float, int]:
    """Every linked copy sealed into frames, as if each log were deleted: (seconds, CPU, bytes)."""
    root = archive_dir_for(db)
    started, cpu = time.perf_counter(), cpu_seconds()
    problems = seal_copies(sorted(root.glob("*/*.json")))
    seconds = time.perf_counter() - started
    if problems:
        print(f"  sealing: {len(problems)} problem(s), first: {problems[0]}")
    return seconds, cpu_seconds() - cpu, archive_size(root).bytes


def measure(name: str, roots: SourceRoots, scratch: Path, pairs: int) -> None:
    raw = log_bytes(roots)
    db = scratch / "index.sqlite3"
    with_s, without_s, overheads, cpu_overheads = [], [], [], []
    archived = files = 0
    sealed = (0.0, 0.0, 0)
    for n in range(pairs):
        order = (True, False) if n % 2 == 0 else (False, True)
        times, cpus = {}, {}
        for archive in order:
            seconds, cpu, size, count = cold_run(db, roots, archive)
            times[archive], cpus[archive] = seconds, cpu
            if archive:
                archived, files = size, count
                if n == pairs - 1:  # after the last with-archive build: what sealing takes
                    sealed = seal_all(db)
        with_s.append(times[True])
        without_s.append(times[False])
        overheads.append(times[True] / times[False] - 1)
        cpu_overheads.append(cpus[True] / cpus[False] - 1)
        print(f"  [{name} pair {n + 1}] with archive {times[True]:.2f} s ({cpus[True]:.1f} s CPU), "
              f"without {times[False]:.2f} s ({cpus[False]:.1f} s CPU): {overheads[-1] * 100:+.1f}% wall, "
              f"{cpu_overheads[-1] * 100:+.1f}% CPU", flush=True)
    seal_s, seal_cpu, sealed_bytes = sealed
    print(f"{name}: {raw / 1e6:,.1f} MB of logs; archive {archived / 1e6:,.1f} MB in {files:,} logs while they live "
          f"({archived / raw:.3f} of the logs); sealed {sealed_bytes / 1e6:,.1f} MB = {sealed_bytes / raw:.3f} of the logs "
          f"({raw / max(sealed_bytes, 1):.1f}x smaller), sealing took {seal_s:.2f} s ({seal_cpu:.1f} s CPU)")
    print(f"{name}: cold index median {statistics.median(with_s):.2f} s with the archive, "
          f"{statistics.median(without_s):.2f} s without; overhead median {statistics.median(overheads) * 100:+.1f}% "
          f"(each pair: {', '.join(f'{o * 100:+.1f}%' for o in overheads)}; target ≤ +10%); "
          f"CPU time overhead median {statistics.median(cpu_overheads) * 100:+.1f}% (what a busy machine pays)", flush=True)
    remove_index_files(db)
    shutil.rmtree(archive_dir_for(db), ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=int, default=1000, help="size of the generated tree (default 1000)")
    ap.add_argument("--files", type=int, default=0, help="files in the generated tree (default: one per 200 KB)")
    ap.add_argument("--pairs", type=int, default=2, help="paired cold builds (with, without) per tree")
    ap.add_argument("--out", type=Path, default=Path("/tmp/threadback-archive-bench"))
    ap.add_argument("--keep", action="store_true", help="reuse an existing generated tree")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--skip-corpus", action="store_true")
    ap.add_argument("--skip-generated", action="store_true")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.skip_corpus:
        measure("corpus", corpus_roots(args.corpus), args.out, max(args.pairs, 3))
    if not args.skip_generated:
        logs = args.out / "logs"
        if not (args.keep and logs.exists()):
            shutil.rmtree(logs, ignore_errors=True)
            files = args.files or max(50, args.size_mb * 5)
            started = time.perf_counter()
            raw = generate(logs, args.size_mb, files)
            print(f"generated {raw / 1e6:,.0f} MB in {files:,} files ({time.perf_counter() - started:.0f} s)", flush=True)
        measure(f"generated {args.size_mb} MB", only_roots({"claude-code": [logs / "claude"]}), args.out, args.pairs)


if __name__ == "__main__":
    main()

"""``threadback export``'s cost on real logs: for the largest sessions of a log tree (default
``../shared/corpus``), the time to collect and render each format and the output's size. Prints
figures; asserts nothing.

    python bench/speed/bench_export.py                    # the 5 largest sessions of ../shared/corpus
    python bench/speed/bench_export.py --top 10 --corpus /path/to/corpus
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from indexer import Index, only_roots  # noqa: E402
from indexer.export import collect_export  # noqa: E402
from tui.session_export import FORMATS, render_export  # noqa: E402

SHARED_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"


def corpus_roots(base: Path):
    return only_roots({"claude-code": [base / "claude-code"], "codex": [base / "codex"], "pi": [base / "pi"]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/shared/corpus") if not SHARED_CORPUS.exists()
                        else SHARED_CORPUS)
    parser.add_argument("--top", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        index = Index(Path(tmp) / "index.sqlite3")
        index.update(corpus_roots(args.corpus))
        sessions = sorted(index.sessions(limit=100_000), key=lambda s: -s.message_count)[: args.top]
        print(f"{'session':<14} {'agent':<12} {'msgs':>6} {'subs':>5} {'collect':>9} "
              + " ".join(f"{f + ' ms':>9} {f + ' KB':>9}" for f in FORMATS))
        for s in sessions:
            started = time.perf_counter()
            export = collect_export(index, s)
            collect_ms = (time.perf_counter() - started) * 1000
            cells = []
            for fmt in FORMATS:
                started = time.perf_counter()
                text = render_export(export, fmt, now=time.time())
                cells.append(f"{(time.perf_counter() - started) * 1000:>9.1f} {len(text.encode()) / 1024:>9.1f}")
            subs = len(export.all_sessions()) - 1
            print(f"{s.session_id[:12]:<14} {s.agent:<12} {s.message_count:>6} {subs:>5} {collect_ms:>9.1f} "
                  + " ".join(cells))
        index.close()


if __name__ == "__main__":
    main()

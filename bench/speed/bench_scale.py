"""Query latency at a 20 GB-equivalent index, synthesised from a 1 GB one. Prints figures.

    python bench/speed/bench_index.py --size-mb 1000 --files 5000 --out /tmp/tb-bench   # the 1 GB index
    python bench/speed/bench_scale.py --base /tmp/tb-bench/index.sqlite3 --out /tmp/tb-scale --factor 20

Building a real 20 GB index takes hours of FTS writing on this machine, so the big one is
synthesised: the 1 GB index is copied, then its sessions, files and messages are replicated in
SQL ``factor - 1`` times. Copy k is the same history k * 35 days later (the generated tree spans
35 days), with its own session ids and higher rowids, as a longer history indexed over time
would have. Every replicated message is written to the same FTS tables as the original (the
trigram table or the side shard, the CJK bigram table), as ``indexer.ingest`` writes them, so
the index has 20x the postings of every term, not a pointer to the same rows. The word index
(``words``) gets each copy's rows too; its vocabulary is the base's (a copy adds no word).

Latency (warm p50, ``bench_search.CLASSES`` plus two classes that depend on the size: a filter
on the last week and a rare word of common trigrams) is printed at 1x and at each checkpoint
(``--at``), against the targets: p50 < 50 ms at 1 GB, < 200 ms at 20 GB. The replication is
resumable (``--keep``): a checkpoint already reached is not built again.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.speed.bench_search import print_latencies  # noqa: E402
from indexer import Index  # noqa: E402
from indexer.store.side_file import cjk_bigrams, side_path  # noqa: E402
from indexer.text.fold import fold, index_form  # noqa: E402
from indexer.text.word_tokens import word_string  # noqa: E402

SPAN_SECONDS = 35 * 86400  # bench_index.generate: sessions 10 minutes apart, 5,000 files


def copy_index(base: Path, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    for src, dst in ((base, out), (side_path(base), side_path(out))):
        shutil.copyfile(src, dst)


def copies_made(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = 'bench_copies'").fetchone()
    return int(row[0]) if row else 1


def replicate(conn: sqlite3.Connection, k: int, base_max: tuple[int, int, int]) -> None:
    """Copy k of the base rows (ids 1..base max), shifted k * SPAN_SECONDS later."""
    msg_max, sess_max, file_max = base_max
    shift = k * SPAN_SECONDS
    conn.execute("BEGIN")
    conn.execute(
        "INSERT INTO sessions SELECT id + :s, agent, session_id || '-c' || :k, "
        "CASE WHEN parent_session_id IS NULL THEN NULL ELSE parent_session_id || '-c' || :k END, branched_from, "
        "source_path || '#c' || :k, project_path, project_name, resume_cwd, git_branch, model, title, title_rank, "
        "start_ts + :shift, end_ts + :shift, message_count, input_tokens, output_tokens, cache_write_tokens, "
        "cache_read_tokens FROM sessions WHERE id <= :smax",
        {"s": k * sess_max, "k": k, "shift": shift, "smax": sess_max})
    conn.execute(
        "INSERT INTO files (id, path, agent, session_rowid, size, mtime_ns, ctime_ns, inode, offset, head_hash, "
        "tail_hash, parser_state, missing, indexed_at) SELECT id + :f, path || '#c' || :k, agent, "
        "session_rowid + :s, size, mtime_ns, ctime_ns, inode, offset, head_hash, tail_hash, parser_state, missing, "
        "indexed_at FROM files WHERE id <= :fmax",
        {"f": k * file_max, "k": k, "s": k * sess_max, "fmax": file_max})
    conn.execute(
        "INSERT INTO messages (id, session_rowid, file_id, ordinal, role, kind, tool_name, ts, text, detail, "
        "indexed, has_cjk, dedup, mark) SELECT id + :m, session_rowid + :s, file_id + :f, ordinal, role, kind, "
        "tool_name, ts + :shift, text, detail, indexed, has_cjk, NULL, mark FROM messages WHERE id <= :mmax",
        {"m": k * msg_max, "s": k * sess_max, "f": k * file_max, "shift": shift, "mmax": msg_max})
    lo, hi = k * msg_max + 1, (k + 1) * msg_max
    conn.execute("INSERT INTO fts(rowid, text) SELECT id, tb_index_form(text) FROM messages "
                 "WHERE id BETWEEN ? AND ? AND indexed = 1", (lo, hi))
    conn.execute("INSERT INTO side.fts_side(rowid, text) SELECT id, tb_index_form(text) FROM messages "
                 "WHERE id BETWEEN ? AND ? AND indexed = 2", (lo, hi))
    conn.execute("INSERT INTO side.cjk2(rowid, grams) SELECT id, g FROM (SELECT id, tb_bigrams(text) AS g "
                 "FROM messages WHERE id BETWEEN ? AND ? AND indexed != 0 AND has_cjk) WHERE g != ''", (lo, hi))
    conn.execute("INSERT INTO side.words(rowid, terms) SELECT id, w FROM (SELECT id, tb_words(text) AS w "
                 "FROM messages WHERE id BETWEEN ? AND ? AND indexed != 0) WHERE w != ''", (lo, hi))
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('bench_copies', ?)", (str(k + 1),))
    conn.execute("UPDATE meta SET value = (SELECT count(*) FROM messages) WHERE key = 'message_count'")
    conn.execute("COMMIT")


def open_for_replication(db: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("ATTACH DATABASE ? AS side", (str(side_path(db)),))
    conn.create_function("tb_index_form", 1, lambda t: index_form(t) or t, deterministic=True)
    conn.create_function("tb_bigrams", 1, lambda t: cjk_bigrams(fold(t)), deterministic=True)
    conn.create_function("tb_words", 1, word_string, deterministic=True)
    return conn


def measure(db: Path, copies: int, base_raw_gb: float, runs: int, compare_words: bool = False) -> None:
    with Index(db, readonly=True) as index:
        stats = index.stats()
        target_ms = 50 if copies == 1 else 200
        print(f"\n== {copies}x: {base_raw_gb * copies:,.0f} GB-equivalent, {stats.messages:,} messages, "
              f"index {stats.size_bytes / 1e9:.1f} GB; target p50 < {target_ms} ms", flush=True)
        print_latencies(index, runs, compare_words=compare_words, target_ms=target_ms)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True, help="an index built by bench_index.py (about 1 GB of logs)")
    ap.add_argument("--base-raw-gb", type=float, default=1.0, help="the raw log size the base index was built from")
    ap.add_argument("--out", type=Path, default=Path("/tmp/threadback-scale"))
    ap.add_argument("--factor", type=int, default=20)
    ap.add_argument("--at", type=int, nargs="*", default=[1, 5, 10, 20], help="copies at which to measure")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--keep", action="store_true", help="go on from an earlier run's copy")
    ap.add_argument("--compare-words", action="store_true",
                    help="each class also without the word index or a phrase's trigrams (the plain walk)")
    args = ap.parse_args()
    db = args.out / "index.sqlite3"
    if not (args.keep and db.exists()):
        copy_index(args.base, db)
    conn = open_for_replication(db)
    base_max = conn.execute("SELECT (SELECT max(id) FROM messages), (SELECT max(id) FROM sessions), "
                            "(SELECT max(id) FROM files)").fetchone()
    done = copies_made(conn)
    if done > 1:  # the base's maxima are those of copy 1
        base_max = tuple(v // done for v in base_max)
    for copies in range(done, args.factor + 1):
        if copies > done:
            t = time.perf_counter()
            replicate(conn, copies - 1, base_max)
            print(f"copy {copies}: {time.perf_counter() - t:.0f} s", flush=True)
        if copies in args.at:
            measure(db, copies, args.base_raw_gb, args.runs, args.compare_words)
    conn.close()


if __name__ == "__main__":
    main()

"""Where an index's bytes go, against the raw logs it was built from. Prints figures.

    python bench/speed/bench_size.py --db /tmp/tb-bench/index.sqlite3 --logs /tmp/tb-bench/logs

Per table and index of both files (SQLite's ``dbstat``) with the bytes its pages leave unused
(rows that do not fill a page; 16 KB pages since schema 10, ``index --compact`` for older
files), each file's page size and free pages, and within ``messages``: the stored text of
searchable messages, the packed tool output nobody searches (zlib or zstd with the index's
dictionary, counted apart), the tool output kept as references into the archived logs
(``indexer.store.log_ref``), and the details (tool-call arguments kept as references counted apart).
Target (issue 18): the index at most 0.35x the raw logs, transcripts unchanged.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from indexer.store.side_file import side_path  # noqa: E402

TARGET = 0.35


def table_sizes(path: Path) -> list[tuple[str, int, int]]:
    """(name, bytes, bytes its pages leave unused) per table and index."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT name, sum(pgsize), sum(unused) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    finally:
        conn.close()


def page_facts(path: Path) -> tuple[int, int]:
    """(page size, bytes on the free list)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        return size, size * conn.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        conn.close()


def message_parts(path: Path) -> list[tuple[str, int]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = conn.execute(
            "SELECT sum(CASE WHEN indexed != 0 THEN length(CAST(text AS BLOB)) END),"
            " sum(CASE WHEN indexed = 0 AND substr(text, 1, 4) = X'28B52FFD' THEN length(text) END),"
            " sum(CASE WHEN indexed = 0 AND NOT (typeof(text) = 'blob' AND substr(text, 1, 4) IN (X'28B52FFD', X'54425201'))"
            "     THEN length(CAST(text AS BLOB)) END),"
            " sum(CASE WHEN indexed = 0 AND substr(text, 1, 4) = X'54425201' THEN length(text) END),"
            " count(CASE WHEN indexed = 0 AND substr(text, 1, 4) = X'54425201' THEN 1 END),"
            " sum(CASE WHEN substr(detail, 1, 4) = X'54425201' THEN NULL ELSE length(CAST(detail AS BLOB)) END),"
            " sum(CASE WHEN substr(detail, 1, 4) = X'54425201' THEN length(detail) END),"
            " count(CASE WHEN substr(detail, 1, 4) = X'54425201' THEN 1 END) FROM messages").fetchone()
        have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        dictionaries = (conn.execute("SELECT count(*), coalesce(sum(length(data)), 0) FROM pack_dictionaries").fetchone()
                        if "pack_dictionaries" in have else (0, 0))
    finally:
        conn.close()
    return [("searchable text", row[0] or 0), ("tool output, zstd + dictionary", row[1] or 0),
            ("tool output, zlib or short", row[2] or 0),
            (f"tool output, references into the log ({row[4]:,})", row[3] or 0),
            ("details (arguments, heads, tails)", row[5] or 0),
            (f"tool-call arguments, references ({row[7]:,})", row[6] or 0),
            (f"packing dictionaries ({dictionaries[0]})", dictionaries[1])]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--logs", type=Path, required=True, help="the log tree the index was built from")
    args = ap.parse_args()
    raw = sum(p.stat().st_size for p in args.logs.rglob("*.jsonl"))
    files = [args.db, side_path(args.db)]
    total = sum(p.stat().st_size for p in files if p.exists())
    print(f"raw logs {raw / 1e6:,.0f} MB; index {total / 1e6:,.0f} MB = {total / raw:.2f}x (target <= {TARGET}x, "
          f"{TARGET * raw / 1e6:,.0f} MB)")
    unused_total = 0
    for path in files:
        if path.exists():
            page_size, free = page_facts(path)
            sizes = table_sizes(path)
            unused = sum(u for _, _, u in sizes)
            unused_total += unused + free
            print(f"\n{path.name}: {path.stat().st_size / 1e6:,.0f} MB, {page_size // 1024} KB pages, "
                  f"{unused / 1e6:,.1f} MB unused in pages, {free / 1e6:,.1f} MB free pages")
            for name, size, unused in sizes:
                if size >= 1e6:
                    print(f"  {name:<32} {size / 1e6:9,.1f} MB  {size / raw:6.3f}x   unused {unused / 1e6:7,.1f} MB")
    print(f"\nunused in pages and free pages, both files: {unused_total / 1e6:,.1f} MB "
          f"({unused_total / raw:.3f}x of the raw logs)")
    print("\nin messages:")
    for name, size in message_parts(args.db):
        print(f"  {name:<32} {size / 1e6:9,.1f} MB  {size / raw:6.3f}x")


if __name__ == "__main__":
    main()

"""Where an index's bytes go, against the raw logs it was built from. Prints figures.

    python bench/bench_size.py --db /tmp/tb-bench/index.sqlite3 --logs /tmp/tb-bench/logs

Per table and index of both files (SQLite's ``dbstat``), and within ``messages``: the stored
text of searchable messages, the packed (zlib) tool output nobody searches, and the details.
Target (issue 18): the index at most 0.35x the raw logs, transcripts unchanged.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from indexer.store.side_file import side_path  # noqa: E402

TARGET = 0.35


def table_sizes(path: Path) -> list[tuple[str, int]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    finally:
        conn.close()


def message_parts(path: Path) -> list[tuple[str, int]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = conn.execute(
            "SELECT sum(CASE WHEN indexed != 0 THEN length(CAST(text AS BLOB)) END),"
            " sum(CASE WHEN indexed = 0 THEN length(CAST(text AS BLOB)) END),"
            " sum(length(CAST(detail AS BLOB))) FROM messages").fetchone()
    finally:
        conn.close()
    return [("searchable text", row[0] or 0), ("tool output, packed", row[1] or 0), ("details (heads, tails)", row[2] or 0)]


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
    for path in files:
        if path.exists():
            print(f"\n{path.name}:")
            for name, size in table_sizes(path):
                if size >= 1e6:
                    print(f"  {name:<32} {size / 1e6:9,.1f} MB  {size / raw:6.3f}x")
    print("\nin messages:")
    for name, size in message_parts(args.db):
        print(f"  {name:<32} {size / 1e6:9,.1f} MB  {size / raw:6.3f}x")


if __name__ == "__main__":
    main()

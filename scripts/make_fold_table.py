"""Writes ``indexer/text/fold_table.txt``, the Traditional → Simplified character table the
indexes fold with (``indexer.text.fold``), from OpenCC's ``t2s`` conversion of each character
alone. Run it after upgrading ``opencc``; a test fails while the file and OpenCC disagree.

    python scripts/make_fold_table.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from indexer.text.fold import TABLE_FILE, table_from_opencc, table_text  # noqa: E402


def main() -> None:
    table = table_from_opencc()
    Path(TABLE_FILE).write_text(table_text(table), encoding="utf-8")
    print(f"{TABLE_FILE}: {len(table):,} characters")


if __name__ == "__main__":
    main()

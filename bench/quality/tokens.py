"""Tokens per answer an agent is given: the MCP tools' answers and the prompt hook's reminder.
Prints figures; asserts nothing.

    python bench/quality/tokens.py [--db /tmp/recall-quality.sqlite3]

For the labelled set's recall queries (tests/data/recall_search/queries.jsonl, a sample of
each group) and for ``sessions`` with no arguments: the size of the full JSON (what the MCP
tools returned before: ``threadback search --json`` with the server's 24 KB budget, every
field of every session) and of the compact answer (``indexer.agents.mcp_tools.compact_*``).
Tokens are estimated offline, without a model's tokenizer: one per 4 ASCII characters and one
per other character (a CJK character is about one token in current tokenizers), JSON as sent
(one line, no indentation); the hook's reminder is text, counted the same way.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "support")]

from indexer import Index  # noqa: E402
from indexer.agents.hooks import find_relevant, hits_block  # noqa: E402
from indexer.agents.mcp_tools import compact_search, compact_sessions  # noqa: E402
from indexer.output.masking import masked_result  # noqa: E402
from search_quality import load  # noqa: E402
from indexer.output import json_shapes as output

BUDGET = 24000  # tui.cli.mcp_server.SEARCH_BUDGET_BYTES


def tokens(payload: object) -> int:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    ascii_chars = sum(1 for c in text if c < "\x80")
    return -(-ascii_chars // 4) + (len(text) - ascii_chars)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, default=Path("/tmp/recall-quality.sqlite3"),
                    help="an index of the labelled set (bench/quality/score.py builds it)")
    ap.add_argument("--per-group", type=int, default=6)
    args = ap.parse_args()
    items = []
    for group in sorted({i.group for i in load()}):
        items += [i for i in load() if i.group == group][: args.per_group]
    rows: dict[str, list[int]] = {"search full": [], "search compact": [], "per_session full": [],
                                  "per_session compact": [], "hook reminder": []}
    with Index(args.db, readonly=True) as index:
        for item in items:
            for per_session in (False, True):
                result = masked_result(index.search(item.query, limit=10, by_session=per_session, now=time.time()))
                name = "per_session " if per_session else "search "
                rows[name + "full"].append(tokens(output.search_json(result, budget=BUDGET)))
                rows[name + "compact"].append(tokens(compact_search(result)))
            found = find_relevant(index, tuple(item.query.split()), None)
            if found.hits:  # the prompt hook's answer: a head line and the matching sessions
                rows["hook reminder"].append(tokens(hits_block("Threadback: earlier work:\n", list(found.hits))))
        listed = index.sessions(limit=20)
        full_sessions = tokens({"sessions": [output.session_json(s) for s in listed]})
        compact_listed = tokens(compact_sessions(listed))
    print(f"tokens per answer (estimated), {len(items)} queries of the labelled set, limit 10 (the tools' default)")
    for name, values in rows.items():
        if not values:
            continue
        print(f"  {name:<22} median {statistics.median(values):>6,.0f}  max {max(values):>6,}")
    print(f"  {'sessions (no args) full':<22} {full_sessions:>13,}   compact {compact_listed:,}  (20 sessions)")


if __name__ == "__main__":
    main()

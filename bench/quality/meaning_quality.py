"""Search by meaning against words alone, on the paraphrase set (tests/data/meaning). Prints figures.

    python bench/quality/meaning_quality.py [--noise /tmp/tb-bench/logs/claude]

Each query was written from a one-line memory of a session, avoiding its words. Three rankers
over the same index: words as ``search --sessions`` takes them today (every word), words with
any one enough (``a OR b OR c``), and meaning alone (``meaning_hits``, its messages' sessions in
order). Per ranker and split (``tuned``: looked at while choosing settings; ``held-out``: never):
hit@1, hit@3 and empty answers. ``--noise`` indexes other sessions beside them (a generated tree
from bench_index.py), so that what is closest must stand out of a bigger history.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Callable, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from indexer import Index, only_roots  # noqa: E402
from indexer.search.meaning import meaning_hits, meaning_status  # noqa: E402
from indexer.search.query import QueryError  # noqa: E402

SET = Path(__file__).resolve().parents[2] / "tests" / "data" / "meaning"
SPLITS = ("tuned", "held-out")


class LabelledQuery(NamedTuple):
    text: str
    session: str  # a name in tests/data/meaning/sessions.py
    split: str


class Score(NamedTuple):
    queries: int
    hit1: int
    hit3: int
    empty: int


def load_queries() -> list[LabelledQuery]:
    data = json.loads((SET / "queries.json").read_text(encoding="utf-8"))
    return [LabelledQuery(q["query"], q["session"], "held-out" if q["held_out"] else "tuned") for q in data["queries"]]


def session_uuid(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"threadback-meaning/{name}"))


def build(db: Path, noise: Path | None = None) -> Index:
    roots = [SET / "projects"] + ([noise] if noise else [])
    index = Index(db)
    index.update(only_roots({"claude-code": roots}))
    return index


def names_by_rowid(index: Index, names: list[str]) -> dict[int, str]:
    by_uuid = {session_uuid(n): n for n in names}
    rows = index.conn.execute("SELECT id, session_id FROM sessions").fetchall()
    return {r[0]: by_uuid.get(r[1], "(other)") for r in rows}


def by_words(index: Index, any_word: bool) -> Callable[[str], list[int]]:
    def rank(query: str) -> list[int]:
        text = " OR ".join(re.findall(r"\w+", query)) if any_word else query
        try:
            result = index.search(text, by_session=True, limit=10, closest=False)  # words alone
        except QueryError:
            return []
        return [hit.session.id for hit in result.hits]

    return rank


def by_meaning(index: Index) -> Callable[[str], list[int]]:
    def rank(query: str) -> list[int]:
        hits = meaning_hits(index.path, query, 50) or []
        sessions: list[int] = []
        for message_id, _ in hits:
            (rowid,) = index.conn.execute("SELECT session_rowid FROM messages WHERE id = ?", (message_id,)).fetchone()
            if rowid not in sessions:
                sessions.append(rowid)
        return sessions

    return rank


def score(queries: list[LabelledQuery], rank: Callable[[str], list[int]], names: dict[int, str]) -> dict[str, Score]:
    out = {}
    for split in SPLITS:
        chosen = [q for q in queries if q.split == split]
        ranked = [[names.get(s) for s in rank(q.text)] for q in chosen]
        out[split] = Score(len(chosen), sum(r[:1] == [q.session] for q, r in zip(chosen, ranked)),
                           sum(q.session in r[:3] for q, r in zip(chosen, ranked)), sum(not r for r in ranked))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--noise", type=Path, help="a folder of other Claude Code sessions to index beside the set")
    args = ap.parse_args()
    queries = load_queries()
    with tempfile.TemporaryDirectory() as scratch:
        index = build(Path(scratch) / "index.sqlite3", args.noise)
        print(meaning_status(index.path))
        names = names_by_rowid(index, sorted({q.session for q in queries}))
        rankers = {"words (all)": by_words(index, False), "words (any)": by_words(index, True),
                   "meaning alone": by_meaning(index)}
        print(f"{'ranker':<15} {'split':<9} {'hit@1':>9} {'hit@3':>9} {'empty':>6}")
        for label, rank in rankers.items():
            for split, s in score(queries, rank, names).items():
                print(f"{label:<15} {split:<9} {s.hit1:>3}/{s.queries:<5} {s.hit3:>3}/{s.queries:<5} {s.empty:>6}")
        index.close()


if __name__ == "__main__":
    main()

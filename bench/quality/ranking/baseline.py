"""A reference ranking to read the figures against: what ``rg -c`` over the session logs would
give. Every whitespace-separated word of the query must occur (as a substring, ignoring case)
somewhere in a session's searchable text; sessions are ranked by how many times the words
occur in all, newest first on ties. No phrases, exclusions, filters or script folding.

It shows what the set rewards: it finds words split across messages and never refuses, but it
counts substrings (``port`` in ``import``) and long documents as much as real work.
"""

from __future__ import annotations

from collections.abc import Callable

from indexer import Index

from bench.quality.ranking.score import RankedSession


def grep_ranker(index: Index, depth: int = 100) -> Callable[[str], list[RankedSession]]:
    sessions = index.sessions(limit=None, parent=...)
    texts: dict[str, list[str]] = {}
    newest: dict[str, float] = {}
    for s in sessions:
        key = s.parent_session_id if s.session_id.startswith("agent-") and s.parent_session_id else s.session_id
        texts.setdefault(key, []).extend(m.text.lower() for m in index.messages(s) if m.indexed)
        newest[key] = max(newest.get(key, 0.0), s.end_ts or s.start_ts or 0.0)

    def rank(text: str) -> list[RankedSession]:
        words = [w.strip('"').lower() for w in text.split() if w.strip('"')]
        scored = []
        for key, messages in texts.items():
            counts = [sum(m.count(w) for m in messages) for w in words]
            if words and all(counts):
                scored.append((sum(counts), newest[key], key))
        scored.sort(reverse=True)
        return [RankedSession(key) for _, _, key in scored[:depth]]

    return rank

"""Near spellings of a word the index does not hold, from the index's own vocabulary.

The word index keeps every token of four or more ``[a-z0-9_]`` characters once (``vocab`` in
the side file, ``indexer.store.word_index``), with a trigram index over it. A misspelt word
(``dokcer``, ``pyteset``, ``migraiton``) shares few trigrams with the right one when letters
are swapped, so candidates come from two small reads: the terms sharing its first two letters
(a range of the vocabulary's unique index) and the terms sharing any of its trigrams. They are
ranked by edit distance with ``rapidfuzz`` (C, a well-kept library; a hand-written Levenshtein
in Python would cost ~100x more over a few thousand candidates), an adjacent swap counting one.
"""

from __future__ import annotations

import re
import sqlite3

from indexer.store.side_file import SCHEMA_NAME

CANDIDATES = 3000  # terms read per read
_WORD = re.compile(r"^[a-z0-9_]{4,}$")


def vocabulary_ready(conn: sqlite3.Connection) -> bool:
    try:
        return conn.execute(f"SELECT 1 FROM {SCHEMA_NAME}.vocab LIMIT 1").fetchone() is not None
    except sqlite3.Error:
        return False


def _candidates(conn: sqlite3.Connection, word: str) -> set[str]:
    head = word[:2]
    upper = head[:-1] + chr(ord(head[-1]) + 1)
    terms = {r[0] for r in conn.execute(
        f"SELECT term FROM {SCHEMA_NAME}.vocab WHERE term >= ? AND term < ? AND length(term) BETWEEN ? AND ? LIMIT ?",
        (head, upper, len(word) - 2, len(word) + 2, CANDIDATES))}
    grams = {word[i:i + 3] for i in range(len(word) - 2)}
    expression = " OR ".join('"' + g + '"' for g in sorted(grams))
    terms.update(r[0] for r in conn.execute(
        f"SELECT v.term FROM {SCHEMA_NAME}.vocab_tri t JOIN {SCHEMA_NAME}.vocab v ON v.id = t.rowid "
        f"WHERE vocab_tri MATCH ? AND length(v.term) BETWEEN ? AND ? LIMIT ?",
        (expression, len(word) - 2, len(word) + 2, CANDIDATES)))
    return terms


def allowed_edits(word: str) -> int:
    """One edit in a word of four or five letters, two in a longer one."""
    return 1 if len(word) <= 5 else 2


def near_spellings(conn: sqlite3.Connection, word: str, limit: int = 2) -> list[str]:
    """Vocabulary terms within a few edits of ``word`` (lower case, 4+ word characters),
    closest first; empty when the word is not one the vocabulary could hold."""
    word = word.lower()
    if not _WORD.match(word) or not vocabulary_ready(conn):
        return []
    from rapidfuzz.distance import OSA  # optimal string alignment: a swap of two letters is one edit

    most = allowed_edits(word)
    scored = []
    for term in _candidates(conn, word):
        if term == word:
            continue
        d = OSA.distance(word, term, score_cutoff=most)
        if d <= most:
            scored.append((d, abs(len(term) - len(word)), term))
    scored.sort()
    return [t for _, _, t in scored[:limit]]

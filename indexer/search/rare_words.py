"""A rare word made of common trigrams, answered from the word index instead of a full walk.

``serverror`` has no match, but "server" and "error" are in most messages: the trigram index
reads the whole posting lists of its seven trigrams to learn that (0.6 s at 20 GB). The word
index (``indexer.store.word_index``) names, in a few small reads, every message that can match: each
term of the query's trigram expression must lie inside one token of a matching message
(``indexer.text.word_tokens``), so the terms holding it (``vocab_tri``) and the messages holding
those terms (``words``) are a superset of the matches.

The answers stay those of the trigram walk: the very same SELECT decides, asked of a small
probe table holding only those messages' indexed text. Asking the trigram tables inside the
messages' id ranges would not do: FTS5 bounds a rowid range only on the rows it returns, so a
range without a match (its message holds the word but not the other words) reads on to the
next match below it, which for this kind of word is the whole posting list again.

The word index is used only when it is complete and the index is folded; a word found in too
many terms or messages is left to the walk, which then stops early (its matches are many).
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from _thread import LockType, allocate_lock  # what threading.Lock/local are; threading costs ~1-2 ms to import

from indexer.search.matching import has_ascii_lookalike
from indexer.search.plan import PlannedGroup, trigram_texts
from indexer.store.side_file import SCHEMA_NAME, SEARCHED_TEXT
from indexer.store.word_index import words_below
from indexer.text.fold import index_form
from indexer.text.word_tokens import query_runs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_TERMS = 100  # terms holding one query run; more: a common word, left to the walk
MAX_MESSAGES = 4000  # messages the word index may name; more: left to the walk
# Candidates left after the newest ``2 * (limit + 1)`` held too few matches, past which the walk
# is asked instead: few of them match (``'Report'`` in quotes among 2,466 messages holding
# "report": 0 of the newest 202), so the probe would read them all (~34 µs each: 77 ms),
# while the word's rare trigrams (``'re``, ``rt'``) let the walk skip to its matches (0.1 ms).
# A word inside one token is not such a case: every message the word index names matches.
WALK_PAST = 500
PROBE = "word_probe"
# One probe per connection, so one search at a time fills it: a search cancelled in the app may
# still run beside the next on the same connection. Keyed by id(conn); a lock left by a closed
# connection is only ever shared by a later one with its id, which then waits for nothing.
_probe_locks: dict[int, LockType] = {}
_probe_locks_guard = allocate_lock()
# Runs found too common, per connection: a verdict only ever stays true (the word index and
# the vocabulary only grow until the side file is refilled, and then it is not used until
# complete), and a wrong one costs the walk, never an answer.
_common: dict[tuple[int, str, int, int], None] = {}


def ready(conn: sqlite3.Connection) -> bool:
    """The word index holds every message, and the trigram index holds folded text (as the
    probe will)."""
    return words_below(conn, SCHEMA_NAME) == 0 and folded(conn)


def folded(conn: sqlite3.Connection) -> bool:
    """The trigram index holds folded text, as the probe will (``indexer.upkeep.refold``)."""
    return conn.execute("SELECT 1 FROM main.meta WHERE key = 'fold_below'").fetchone() is None


def candidate_ids(conn: sqlite3.Connection, groups: Sequence[PlannedGroup]) -> list[int] | None:
    """Every message that can match every group's trigram terms (an OR group: any of them),
    newest first; None when the word index cannot narrow it (no word of 4+ characters in any
    group, or more than ``MAX_MESSAGES`` messages hold them all, or the index not complete).

    The groups are asked together: ``grep`` and ``timeout`` are each in thousands of messages
    but together in a few hundred, and a message can match only where all of them are."""
    if not groups or not ready(conn):
        return None
    parts = []
    for group in groups:
        part = _group_match(conn, trigram_texts(group))
        if part == "":
            return []  # no message holds this group
        if part is not None:
            parts.append(part)
    if not parts:
        return None
    match = " AND ".join(parts)
    key = (id(conn), match, MAX_TERMS, MAX_MESSAGES)
    if key in _common:
        return None
    # Counted before they are read: a common word's 4,001 ids take ~1.5 ms to bring into Python
    # (a row object each), their count ~0.3 ms.
    if conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM {SCHEMA_NAME}.words WHERE words MATCH ? LIMIT ?)",
                    (match, MAX_MESSAGES + 1)).fetchone()[0] > MAX_MESSAGES:
        _too_common(key)
        return None
    ids = [r[0] for r in conn.execute(f"SELECT rowid FROM {SCHEMA_NAME}.words WHERE words MATCH ?", (match,))]
    return sorted(ids, reverse=True)


def _group_match(conn: sqlite3.Connection, alternatives: list[str]) -> str | None:
    """The word-index expression naming the messages that hold, for some alternative, a word
    containing each of its runs (a phrase's words all occur in a matching message); "" when
    no message can; None when it cannot narrow (an alternative without a run of 4, or with
    every run in too many words)."""
    runs = [query_runs(needle) for needle in alternatives]
    key = (id(conn), " | ".join(" ".join(r) for r in runs), MAX_TERMS, MAX_MESSAGES)
    if any(not r for r in runs) or key in _common:
        return None
    parts = []
    for alternative in runs:
        held: list[str] = []
        for run in alternative:
            terms = _terms_holding(conn, run)
            if len(terms) > MAX_TERMS:
                continue  # in too many words to narrow: the other runs may
            if not terms:
                break  # no message holds this alternative
            held.append("(" + " OR ".join(f'"{t}"' for t in terms) + ")")
        else:
            if not held:
                _too_common(key)
                return None
            parts.append("(" + " AND ".join(held) + ")")
    return "(" + " OR ".join(parts) + ")" if parts else ""


def _terms_holding(conn: sqlite3.Connection, run: str) -> list[str]:
    """The terms containing ``run``: up to ``MAX_TERMS + 1`` (more: too many)."""
    return [r[0] for r in conn.execute(
        f"SELECT v.term FROM {SCHEMA_NAME}.vocab_tri JOIN {SCHEMA_NAME}.vocab v ON v.id = vocab_tri.rowid"
        " WHERE vocab_tri MATCH ? AND instr(v.term, ?) > 0 LIMIT ?", (f'"{run}"', run, MAX_TERMS + 1))]


def _too_common(key: tuple[int, str, int, int]) -> None:
    if len(_common) > 10_000:
        _common.clear()
    _common[key] = None


def in_ranges(ids: list[int], ranges: list[tuple[int, int]] | None) -> list[int]:
    """The ids (newest first) inside the filters' id ranges (``indexer.search.narrowing``)."""
    if ranges is None:
        return ids
    spans = sorted(ranges)
    lows = [lo for lo, _ in spans]
    return [i for i in ids if (k := bisect.bisect_right(lows, i) - 1) >= 0 and i <= spans[k][1]]


def _probe_lock(conn: sqlite3.Connection) -> LockType:
    with _probe_locks_guard:
        return _probe_locks.setdefault(id(conn), allocate_lock())


def probe_needs_fold(values: Iterable[object]) -> bool:
    """Whether the probe's text must be folded as the index's is, given every value its SELECT
    is asked with (the expressions, an exclusion's, a condition's): unless all are ASCII.
    Folding changes no ASCII character and makes none; 804 of its targets lie outside the BMP's
    CJK blocks (U+346E folds to U+2B748), so any other text may need it."""
    return any(isinstance(v, str) and not v.isascii() for v in values)


_JOINTS = tuple(map(chr, range(1, 32)))  # what may join a message's strings in the probe
# What the probe holds of a message, for an all-ASCII SELECT (``probe_strings``): the strings
# its expressions ask for that the message holds (lower-cased), joined by a character none has.
Kept = tuple[tuple[str, ...], str]


def quoted_strings(expression: str) -> list[str] | None:
    """The strings of an FTS5 expression made of quoted strings, AND, OR, NOT and brackets
    (``""`` in a string is a quote); None for anything else (NEAR, a bare word). No regex:
    every search asks, and compiling one costs a fresh process ~0.1 ms."""
    strings, rest, i = [], [], 0
    while (start := expression.find('"', i)) >= 0:
        rest.append(expression[i:start])
        parts, j = [], start + 1
        while (end := expression.find('"', j)) >= 0 and expression.startswith('"', end + 1):
            parts.append(expression[j : end + 1])
            j = end + 2
        if end < 0:
            return None
        parts.append(expression[j:end])
        strings.append("".join(parts))
        i = end + 1
    rest.append(expression[i:])
    operators = " ".join(rest).replace("(", " ").replace(")", " ").split()
    return strings if all(w in ("AND", "OR", "NOT") for w in operators) else None


def probe_strings(values: tuple[object, ...]) -> Kept | None:
    """What the probe must hold for an all-ASCII SELECT asked with ``values`` (every value:
    expressions, an exclusion's, a condition's), when each expression (a value holding a
    quote) is made of quoted strings, AND, OR, NOT and brackets: each string matches a message
    exactly where its lower-cased text holds it (``matching.lowered``), so a message's probe
    text can be just the strings it holds, joined by a character none of them has (an FTS5
    insert costs ~0.3 µs a character: ~14 ms for the 181 messages of ``"retry the connection"``
    at 1 GB). None: whole texts."""
    strings: list[str] = []
    for v in values:
        if isinstance(v, str) and '"' in v:
            found = quoted_strings(v)
            if found is None:
                return None  # not an expression of strings
            strings += found
    every = "".join(strings)
    joint = next((c for c in _JOINTS if c not in every), None)
    if not strings or joint is None or "\0" in every:  # FTS5 reads a string only up to a NUL
        return None
    return tuple(dict.fromkeys(t.lower() for t in strings)), joint


def _probe_rows(rows: list[tuple[int, str]], fold: bool, kept: Kept | None) -> Iterator[tuple[int, str]]:
    if fold:
        return ((rowid, index_form(text) or text) for rowid, text in rows)
    if kept is None:
        return iter(rows)
    return (row for rowid, text in rows if (row := _held(rowid, text, kept)) is not None)


def _held(rowid: int, text: str, kept: Kept) -> tuple[int, str] | None:
    """The strings of ``kept`` the message holds, its probe text (None: none, so no
    expression can match it); its whole text where lower-casing would misread it, or where
    a NUL is (FTS5's trigram tokenizer reads no further).

    The strings are ASCII (``probe_strings``): a text outside ASCII is lower-cased as its UTF-8
    bytes, ASCII letters only, which holds one exactly where ``text.lower()`` does once no
    lookalike is in it (``matching.lowered``), in about half the time (4 MB of a probe's
    texts: 27.6 -> 16.0 ms)."""
    if "\0" in text:
        return rowid, text
    strings, joint = kept
    if text.isascii():
        low = text.lower()
        held = [t for t in strings if t in low]
    elif has_ascii_lookalike(text):
        return rowid, text
    else:
        low_bytes = text.encode("utf-8", "surrogatepass").lower()
        held = [t for t in strings if t.encode() in low_bytes]
    return (rowid, joint.join(held)) if held else None


def _fill(conn: sqlite3.Connection, ids: list[int], fold: bool, kept: Kept | None) -> None:
    """Add the messages' probe text to the probe, in one transaction: alone, each insert
    would flush FTS5's pending terms to a segment of its own (5x the time). ``fold``: as the
    trigram index holds it (Traditional → Simplified); an ASCII query matches the text as it
    is the same, and skips folding (~40 µs a message of mixed text); ``kept``: only the
    strings it asks for (``probe_strings``)."""
    conn.execute("SAVEPOINT word_probe_fill")  # inside a transaction the caller holds, too
    try:
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            rows = conn.execute(f"SELECT m.id, {SEARCHED_TEXT} FROM main.messages m WHERE m.indexed != 0 AND m.id IN"
                                f" ({','.join('?' * len(chunk))})", chunk).fetchall()
            conn.executemany(f"INSERT INTO temp.{PROBE}(rowid, text) VALUES (?, ?)", _probe_rows(rows, fold, kept))
    finally:
        conn.execute("RELEASE word_probe_fill")


def newest_among(conn: sqlite3.Connection, ids: list[int], filters: Any, limit: int,
                 ask: Callable[[str, int], Any], asked: tuple[object, ...]) -> Any:
    """``candidates.newest`` for a source whose matches are all among ``ids`` (newest first):
    ``ask(probe, floor)`` (its SELECT above ``floor``, reading the table ``probe`` for the
    trigram tables) run on the newest ``limit + 1`` of them, then the newest ``2 * (limit + 1)``,
    then on all: where most candidates match, the first batch answers (a candidate's text
    costs ~10-60 µs to read and check)."""
    size = limit + 1
    if len(ids) <= size:
        return probe_walk(conn, [(ids, 0)], filters, ask, asked)

    def batches() -> Iterator[tuple[list[int], int]]:
        yield ids[:size], ids[size - 1]
        if len(ids) <= 2 * size:
            yield ids[size:], 0
            return
        yield ids[size:2 * size], ids[2 * size - 1]
        if len(ids) - 2 * size <= WALK_PAST:
            yield ids[2 * size:], 0

    return probe_walk(conn, batches(), filters, ask, asked)


def probe_walk(conn: sqlite3.Connection, batches: Iterable[tuple[list[int], int]], filters: Any,
               ask: Callable[[str, int], Any], asked: tuple[object, ...]) -> Any | None:
    """Fill the probe with each batch of candidates' text (as ``probe_strings(asked)`` says,
    given every value ``ask``'s SELECT is asked with), and ``ask`` it above the batch's floor (every
    candidate at or above it is in the probe by then) until more than the limit match there
    or no candidate is left. None if the batches ran out first (the caller walks instead)."""
    ranges = filters.id_ranges(conn)
    fold = probe_needs_fold(asked)
    kept = None if fold else probe_strings(asked)
    with _probe_lock(conn):
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{PROBE} USING fts5 (text, content='', tokenize='trigram')")
        conn.execute(f"INSERT INTO temp.{PROBE}({PROBE}) VALUES ('delete-all')")
        for ids, floor in batches:
            _fill(conn, in_ranges(ids, ranges), fold, kept)
            found = ask(PROBE, floor)
            if found.capped or not floor:
                return found  # more than the limit among the newest: none older can be in the answer
    return None

"""A long term (a phrase) narrowed by a few of its trigrams, then checked whole on the probe.

``"retry the connection"`` is rare, but all 18 of its trigrams are in most messages: the trigram
walk reads 18 position lists over the whole index to find its few matches (268 ms at 20 GB).
Four of those trigrams, each where the phrase puts it (``NEAR`` bounds their spread), read a
tenth of that and name about the same messages. Those are a superset of the matches, newest
first: the exact SELECT then runs on the word path's probe table holding only their text
(``indexer.search.rare_words``), so the answers stay the walk's.

The word index narrows it only when its words rarely meet (``indexer.search.rare_words``): here
``retry`` is in 141k of the 1 GB tree's 796k messages, and 52,805 hold both words, far over its
4,000-message cap (it keeps no positions).

Worth it only where matches are sparse: a probed message costs about 40 µs, a message the
walk reads past about 0.1 µs (less for a shorter phrase), so the walk stays when the superset
holds more than one message in ``DENSE`` (a margin over the ~400 of that estimate: measured on
the generated tree, ``"websocket test"``, one in ~330, is faster walked; ``"retry the
connection"``, one in ~4,400, probed). The newest ``SAMPLE`` candidates tell which.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence

from indexer.search.plan import PlannedGroup, trigram_texts
from indexer.search.rare_words import candidate_ids, folded, newest_among, probe_walk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MIN_LENGTH = 10  # characters (8 trigrams): a shorter term's walk is cheap enough
TOKENS = 4  # trigrams kept: more read more position lists, fewer name more messages
DENSE = 1000  # ids per candidate below which the walk is cheaper than the probe
SAMPLE = 64  # the newest candidates of the first table that tell
MAX_ROUNDS_OF_LIMIT = 4  # candidates probed, in limits; past it the superset is poor: walk
_WORD = re.compile(r"\w+")


def narrowed(conn: sqlite3.Connection, groups: Sequence[PlannedGroup], tables: Sequence[str], filters: Any,
             limit: int, ask: Callable[[str, int], Any], asked: tuple[object, ...]) -> Any | None:
    """``candidates.newest`` for a source of the trigram ``tables`` matching every group, with
    ``ask(probe, floor)`` its SELECT on the probe: through the word index, else through a long
    phrase's trigrams; None where neither narrows (the walk is the cheaper way). ``asked``:
    every value that SELECT is asked with (what the probe must hold: ``words.probe_strings``)."""
    ids = candidate_ids(conn, groups)
    if ids is not None:  # the word index names every message that can match (indexer.search.rare_words)
        return newest_among(conn, ids, filters, limit, ask, asked)
    if filters.id_ranges(conn) is not None:
        return None  # the filters' few sessions: the walk reads only their ranges (indexer.search.narrowing)
    expression = sparse_expression(groups) if folded(conn) else None
    batches = candidate_batches(conn, tables, expression, limit) if expression else None
    return probe_walk(conn, batches, filters, ask, asked) if batches is not None else None


def sparse_term(text: str) -> str | None:
    """An FTS5 expression every message matching the phrase ``text`` (folded, as its trigram
    expression holds it) also matches, reading fewer position lists; None if ``text`` is short
    or one word.

    Trigrams spanning two words come first (they name a pair of words), then ones spread from
    the start; none overlaps another. Their distance in the text bounds the ``NEAR``."""
    n = len(text)
    if n < MIN_LENGTH or len(_WORD.findall(text)) < 2:
        return None  # one long word is the word index's: a superset here would be no sparser than the word
    starts = range(n - 2)
    word = [c.isalnum() or c == "_" for c in text]
    pairs = [p for p in starts if word[p] and not word[p + 1] and word[p + 2]]
    chosen: list[int] = []
    for p in [*pairs, *starts[::4], n - 3]:
        if len(chosen) < TOKENS and all(abs(p - q) >= 3 for q in chosen):
            chosen.append(p)
    chosen.sort()
    if len(chosen) < 2:
        return None
    phrases = " ".join('"' + text[p : p + 3].replace('"', '""') + '"' for p in chosen)
    return f"NEAR({phrases}, {chosen[-1] - chosen[0]})"


def sparse_expression(groups: Sequence[PlannedGroup]) -> str | None:
    """The groups' trigram expression (AND of groups, OR within one) with each long term
    narrowed as ``sparse_term``; None when no term is long enough to gain."""
    parts, gained = [], False
    for group in groups:
        alternatives = []
        for text in trigram_texts(group):
            sparse = sparse_term(text)
            gained |= sparse is not None
            alternatives.append(sparse or '"' + text.replace('"', '""') + '"')
        parts.append("(" + " OR ".join(alternatives) + ")")
    return " AND ".join(parts) if gained else None


def candidate_batches(conn: sqlite3.Connection, tables: Sequence[str], expression: str,
                      limit: int) -> Iterator[tuple[list[int], int]] | None:
    """Batches of ids matching ``expression`` in any of ``tables``, newest first, each with the
    floor above which every such id has been named (0: all have). None when the superset is
    dense (the walk is cheaper); the walk stops yielding past ``MAX_ROUNDS_OF_LIMIT`` limits."""
    t = tables[0]
    sample = [r[0] for r in conn.execute(f"SELECT rowid FROM {t} WHERE {t} MATCH ? ORDER BY rowid DESC LIMIT ?",
                                         (expression, SAMPLE))]
    if len(sample) == SAMPLE and sample[0] - sample[-1] < DENSE * SAMPLE:
        return None
    size = limit + 1
    below = dict.fromkeys(tables, 2**63 - 1)  # each table's ids below this are not read yet
    # The sample is the first table's newest matches (all of them if it came back short): the
    # first batch goes on below it rather than reading it again (a quarter of that batch's time).
    first = _batch(conn, tables, expression, below, size, newest_known=(sample, len(sample) < SAMPLE))
    return _rest(conn, tables, expression, below, size, first)


def _rest(conn: sqlite3.Connection, tables: Sequence[str], expression: str, below: dict[str, int], size: int,
          first: tuple[list[int], int]) -> Iterator[tuple[list[int], int]]:
    seen: set[int] = set()
    batch = first
    cap = MAX_ROUNDS_OF_LIMIT * size
    while True:
        ids = [i for i in batch[0] if i not in seen]
        seen.update(ids)
        yield ids, batch[1]
        if not batch[1] or len(seen) > cap:
            return
        size *= 2
        batch = _batch(conn, tables, expression, below, size)


def _batch(conn: sqlite3.Connection, tables: Sequence[str], expression: str, below: dict[str, int],
           size: int, newest_known: tuple[list[int], bool] = ([], False)) -> tuple[list[int], int]:
    """Up to ``size`` more ids from each table, none below the floor an earlier table of this
    batch reached; moves ``below`` down to what each has named. ``newest_known``: the first
    table's newest matches, already read, and whether they are all of them."""
    ids: list[int] = []
    floor = 0
    known, complete = newest_known
    for n, t in enumerate(tables):
        if below[t] <= 0:
            continue
        got = known[:size] if n == 0 else []
        if len(got) < size and not (n == 0 and complete):
            top = got[-1] if got else below[t]
            got += [r[0] for r in conn.execute(f"SELECT rowid FROM {t} WHERE {t} MATCH ? AND rowid < ? AND rowid >= ?"
                                               " ORDER BY rowid DESC LIMIT ?", (expression, top, floor, size - len(got)))]
        ids += got
        if len(got) == size:
            floor = got[-1]
            below[t] = got[-1]
        else:
            below[t] = floor  # every id of this table at or above the floor is named
    return ids, max(below.values())

"""Closest matches: what a search offers after the sessions holding every word.

A person half-remembers a session: one word is wrong (a status code, ``colour`` for
``color``), misspelt, in the other Chinese script, or the whole line is a Japanese sentence the
session never wrote verbatim. Strict AND then finds nothing. This stage ranks messages and
sessions by how much of the query they hold instead:

1. **some words**: each unit of the query (``indexer.search.recall_words``) is looked up alone
   (its newest ``PER_UNIT`` matches, bounded like every read) and weighted by its rarity (BM25's
   idf, from how many messages hold it). A session's coverage is the weight of the units it
   holds over the weight of them all, in the query version it holds best; a message holding
   several units together counts for more.
2. **spelling**: a word with no match is replaced by its nearest spellings in the index's own
   vocabulary (``indexer.search.spelling``); a hit that needed one says so.
3. **meaning**: ``indexer.search.meaning.meaning_hits`` (an embedding search, another module,
   optional); when it is absent or not built, search is lexical and says so.

Tool output (rows with role ``tool``) counts half: what the person and the agent wrote comes
first. Every hit carries how it matched (``MATCH_*``).
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections import defaultdict

from indexer.util.named_record import NamedTuple
from indexer.search.candidates import Candidate, Filters, group_sources, message_total, newest, sessions_of_filtered
from indexer.search.plan import SearchPlan, make_plan
from indexer.search.query import Query, Term
from indexer.search.recall_words import Unit, recall_units
from indexer.store.side_file import SCHEMA_NAME

MATCH_ALL, MATCH_SOME, MATCH_SPELLING, MATCH_MEANING = "all words", "some words", "spelling", "meaning"
PER_UNIT = 120  # newest matches read per unit
MIN_COVERAGE = 0.34  # a session must hold at least this share of the query's weight
MIN_FLOOR = 0.12  # ... or, when none does, this much
TOOL_WEIGHT = 0.5  # tool output counts this much of what was written
SPELLING_WEIGHT = 0.8  # a corrected word counts this much of the word itself
MEANING_LIMIT = 50
# Meaning is asked only for a description (three words or more) and keeps only messages at least
# this similar: gibberish and single names score under 0.05 against the corpus, paraphrases of
# the labelled sets 0.28-0.6 (wordllama's l2_supercat, cosine).
MEANING_MIN_WORDS = 3
MEANING_MIN_SIMILARITY = 0.2
_WORD = re.compile(r"[^\W\d_]{2,}")


class Closest(NamedTuple):
    """The closest matches, best first, and what the search did to find them."""

    messages: list[tuple[float, int, str]]  # (score, message id, how it matched)
    sessions: list[tuple[float, int, list[int], str]]  # (score, session rowid, its best message ids, how)
    terms: dict[int, list[Term]]  # message id -> the words it was found by (for its snippet)
    corrections: dict[str, str]  # typed word -> the spelling searched instead
    tried: tuple[str, ...]
    not_searched: tuple[str, ...]
    meaning: str  # "used", "no match", "unavailable"


class _Found(NamedTuple):
    unit: Unit
    weight: float
    rows: tuple[Candidate, ...]
    spelled_from: str | None = None


def _idf(found_rows: int, capped: bool, oldest: int, top_id: int, total: int) -> float:
    count = float(found_rows)
    if capped and found_rows:
        count = min(float(total), found_rows * top_id / max(1, top_id - oldest + 1))
    return math.log(1 + (total - count + 0.5) / (count + 0.5))


def _unit_plan(query: Query, text: str) -> SearchPlan:
    return make_plan(Query(raw=text, groups=((Term(text),),), role=query.role, output=query.output))


def _read(conn: sqlite3.Connection, filters: Filters, query: Query, unit: Unit, top_id: int, total: int,
          spelled_from: str | None = None) -> _Found | None:
    plan = _unit_plan(query, unit.text)
    if not plan.indexed:
        return None  # a one-letter or two-letter Latin word: no index of its own
    found = newest(conn, group_sources(plan.indexed[0]), filters, PER_UNIT)
    weight = _idf(len(found.rows), found.capped, found.oldest, top_id, total)
    return _Found(unit, weight, found.rows, spelled_from)


def holds_cjk(conn: sqlite3.Connection) -> bool:
    """Whether any indexed message holds Chinese or Japanese (the side file's bigram index has a
    segment): only then is an English query also looked for in those languages."""
    try:
        return conn.execute(f"SELECT 1 FROM {SCHEMA_NAME}.cjk2_idx LIMIT 1").fetchone() is not None
    except sqlite3.Error:
        return False


def _lookups(conn: sqlite3.Connection, plan: SearchPlan, filters: Filters, units: list[Unit]
             ) -> tuple[list[_Found], dict[str, str], list[str]]:
    from indexer.search.spelling import near_spellings, vocabulary_ready

    total = message_total(conn)
    top_id = conn.execute("SELECT coalesce(max(id), 1) FROM messages").fetchone()[0]
    found: list[_Found] = []
    corrections: dict[str, str] = {}
    unspelled: list[str] = []
    can_spell = None
    for unit in units:
        got = _read(conn, filters, plan.query, unit, top_id, total)
        if got is None:
            continue
        if got.rows or unit.cjk or unit.translated:
            found.append(got)
            continue
        if can_spell is None:
            can_spell = vocabulary_ready(conn)
        near = near_spellings(conn, unit.text) if can_spell else []
        if not near:
            unspelled.append(unit.text)
            found.append(got)  # it still counts in what the query asked for
            continue
        spelled = _read(conn, filters, plan.query, unit._replace(text=near[0]), top_id, total, unit.text)
        if spelled is not None and spelled.rows:
            corrections[unit.text] = near[0]
            found.append(spelled._replace(weight=spelled.weight * SPELLING_WEIGHT))
        else:
            found.append(got)
    return found, corrections, unspelled


class _Shares:
    """The share of the query's weight a set of units covers, in the version it covers best
    (``held``: indexes into the units found). The whole of each version is summed once."""

    def __init__(self, found: list[_Found], versions: list[float], weights: list[float]):
        self.weights = weights
        self.versions = versions  # each version's weight (a translation counts for less)
        self.in_version = [[v in f.unit.versions for f in found] for v in range(len(versions))]
        self.whole = [sum(w for w, inside in zip(weights, row) if inside) for row in self.in_version]

    def __call__(self, held: set[int]) -> float:
        if len(self.whole) == 1:
            return sum(self.weights[k] for k in held) / self.whole[0] if self.whole[0] > 0 else 0.0
        best = 0.0
        for row, whole, factor in zip(self.in_version, self.whole, self.versions):
            if whole > 0:
                best = max(best, factor * sum(self.weights[k] for k in held if row[k]) / whole)
        return best


def find_closest(conn: sqlite3.Connection, plan: SearchPlan, filters: Filters, *, skip_messages: set[int],
                 skip_sessions: set[int], wanted: int, index_path: str | None) -> Closest:
    """Messages and sessions holding part of the query, best first, without those the exact
    search already gave (``skip_*``); for a query that describes something (three words or
    more), meaning raises the sessions it also finds and adds those only it finds, after them."""
    units, versions = recall_units(plan.query, holds_cjk(conn))
    found, corrections, unspelled = _lookups(conn, plan, filters, units)
    weights = _unit_weights(found)
    per_message, rows = _units_by_message(found)
    share = _Shares(found, versions, weights)
    messages, by_session = _score_messages(per_message, rows, found, share, skip_messages)
    sessions = _score_sessions(by_session, per_message, found, share, skip_sessions)
    terms = {mid: [Term(found[k].unit.text) for k in held] for mid, held in per_message.items()}
    tried = _lexical_steps(corrections, unspelled)
    not_searched = _words_not_searched(plan.query)
    meaning = "not needed"
    asked = _description(plan.query)
    if asked is not None:
        meaning, extra = _meaning(conn, index_path, asked, filters, skip_sessions)
        sessions = _with_meaning(sessions, extra)
        if meaning == "unavailable":
            not_searched.append("meaning (no embedding model or vectors here: search is lexical)")
        else:
            tried.append("meaning (an embedding search)")
    return Closest(messages, sessions, terms, corrections, tuple(tried), tuple(not_searched), meaning)


def _unit_weights(found: list[_Found]) -> list[float]:
    """Each unit's weight in the query's whole, in the order found."""
    # A unit no message holds still counts in the query's weight, but only once: at the weight
    # of the rarest word found (a typo is not worth more than the rarest real word).
    top = max((f.weight for f in found if f.rows), default=1.0)
    # Squared: a rare word says far more about which session it was than a common one (tuned
    # on the training split, with a few hundred MB of other sessions beside the right ones).
    return [(f.weight if f.rows else top) ** 2 for f in found]


def _units_by_message(found: list[_Found]) -> tuple[dict[int, set[int]], dict[int, Candidate]]:
    """Which units (indexes into ``found``) each message holds, and each message's row: a message
    several units found is scored once, for all of them."""
    per_message: dict[int, set[int]] = defaultdict(set)
    rows: dict[int, Candidate] = {}
    for k, f in enumerate(found):
        for c in f.rows:
            per_message[c.id].add(k)
            rows[c.id] = c
    return per_message, rows


def _lexical_steps(corrections: dict[str, str], unspelled: list[str]) -> list[str]:
    """What the word searches tried, for the answer to say why it holds what it holds."""
    tried = [f"every word in one place ({MATCH_ALL})", f"each word alone, ranked by how much of the query a session holds ({MATCH_SOME})"]
    if corrections:
        tried.append("near spellings: " + ", ".join(f"{a} → {b}" for a, b in corrections.items()))
    if unspelled:
        tried.append("near spellings, none found for: " + ", ".join(unspelled))
    return tried


def _words_not_searched(query: Query) -> list[str]:
    """The words no search looked for alone, for the answer to say so."""
    not_searched = []
    if any(len(t.text) < 3 and not t.text[:1].isalpha() for t in query.positive_terms):
        not_searched.append("words under three characters on their own")
    return not_searched


def _description(query: Query) -> str | None:
    """The query's words, when they describe something the meaning search may find; else None."""
    asked = " ".join(t.text for t in query.positive_terms)
    # A command line with its flags (``grep -rn timeout src/``) describes nothing: its words are
    # matched as typed, and the meaning search was most of its time (42 of 55 ms at 1 GB).
    command = any(t.text.startswith("-") for t in query.positive_terms)
    if describes(asked) and not command:
        return asked
    return None


# How much a session's meaning similarity adds to its share of the query's words. Meaning was
# asked only when the words found too few sessions; a paraphrase's common words always find
# plenty, so the session it described lost to ones that merely shared words. Blended, on the
# training split: hit@1 80% -> 85% (paraphrases 38% -> 62%), with a few hundred MB of other
# history beside 78% -> 81%; 0.6 to 2.5 gave the same (bench/quality/score.py).
MEANING_BLEND = 1.0
MEANING_ONLY_WEIGHT = 0.3  # a session only meaning found ranks at this share of its similarity


def _with_meaning(sessions: list, extra: list) -> list:
    """The lexical sessions, each raised by the similarity meaning found in it (``extra`` holds
    0.3 of it, the weight a session found by meaning alone is ranked with); then the sessions
    only meaning found."""
    by_meaning = {s: (score, mids) for score, s, mids, _ in extra}
    out = []
    for score, s, mids, label in sessions:
        m = by_meaning.pop(s, None)
        out.append((round(score + MEANING_BLEND * m[0] / MEANING_ONLY_WEIGHT, 4) if m else score, s, mids, label))
    out.sort(key=lambda x: (x[0], max(x[2])), reverse=True)
    return out + [(score, s, mids, MATCH_MEANING) for s, (score, mids) in by_meaning.items()]


def _least(best: float) -> float:
    """The least share of the query a match must hold: MIN_COVERAGE, lower when nothing holds
    that much (an answer naming the nearest beats an empty one), never under MIN_FLOOR."""
    return max(MIN_FLOOR, min(MIN_COVERAGE, 0.6 * best))


def _label(held: set[int], found: list[_Found]) -> str:
    return MATCH_SPELLING if any(found[k].spelled_from for k in held) else MATCH_SOME


def _score_messages(per_message: dict[int, set[int]], rows: dict[int, Candidate], found: list[_Found],
                    share: _Shares, skip: set[int]):
    messages: list[tuple[float, int, str]] = []
    by_session: dict[int, list[tuple[float, int]]] = defaultdict(list)
    scores = {}
    for mid, held in per_message.items():
        c = rows[mid]
        scores[mid] = share(held) * (TOOL_WEIGHT if c.role == "tool" else 1.0)
        by_session[c.session_rowid].append((scores[mid], mid))
    least = _least(max(scores.values(), default=0.0))
    for mid, score in scores.items():
        if mid not in skip and score >= least:
            messages.append((round(score, 4), mid, _label(per_message[mid], found)))
    # Equal shares, newest first: ids follow the order logs were read in, which a checkout or a
    # copy may change, and the same index must answer in the same order.
    messages.sort(key=lambda m: (m[0], rows[m[1]].ts or 0.0, m[1]), reverse=True)
    return messages, by_session


def _score_sessions(by_session: dict[int, list[tuple[float, int]]], per_message: dict[int, set[int]],
                    found: list[_Found], share: _Shares, skip: set[int]):
    sessions = []
    covers = {s: share(set().union(*(per_message[mid] for _, mid in items)))
              for s, items in by_session.items() if s not in skip}
    least = _least(max(covers.values(), default=0.0))
    for s, items in by_session.items():
        if s in skip:
            continue
        held = set().union(*(per_message[mid] for _, mid in items))
        cover = covers[s]
        if cover < least:
            continue
        items.sort(reverse=True)
        best = items[0][0]
        # Held across the session, and held together in one message: both count.
        score = 0.5 * cover + 0.5 * best
        sessions.append((round(score, 4), s, [mid for _, mid in items], _label(held, found)))
    sessions.sort(key=lambda x: (x[0], max(x[2])), reverse=True)
    return sessions


def describes(text: str) -> bool:
    """Whether a query reads as a description (three words or more) rather than a word or two: the
    nearest vectors of one or two words, a name or gibberish (``zzqqxx``), are noise, not meaning."""
    return len(_WORD.findall(text)) >= MEANING_MIN_WORDS


def _meaning(conn: sqlite3.Connection, index_path: str | None, asked: str, filters: Filters, skip: set[int]
             ) -> tuple[str, list[tuple[float, int, list[int], str]]]:
    """Sessions an embedding search finds (``indexer.search.meaning``, optional), after the rest,
    within the query's filters (agent, project, time, excluded sessions) like every other stage."""
    try:
        from indexer.search import meaning
    except ImportError:
        return "unavailable", []
    if not index_path:
        return "unavailable", []
    try:
        hits = meaning.meaning_hits(index_path, asked, MEANING_LIMIT)
    except Exception:  # noqa: BLE001 - an optional stage fails open: the lexical answer stands
        return "unavailable", []
    if hits is None:
        return "unavailable", []
    hits = [(mid, score) for mid, score in hits if score >= MEANING_MIN_SIMILARITY]
    if not hits:
        return "no match", []
    session_of = sessions_of_filtered(conn, filters, [int(mid) for mid, _ in hits])
    out: dict[int, tuple[float, int, list[int], str]] = {}
    for mid, score in hits:
        s = session_of.get(int(mid))
        if s is None or s in skip:
            continue
        if s not in out:
            out[s] = (round(float(score) * MEANING_ONLY_WEIGHT, 4), s, [int(mid)], MATCH_MEANING)
        else:
            out[s][2].append(int(mid))
    return "used", list(out.values())

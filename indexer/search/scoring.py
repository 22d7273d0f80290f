"""How well a message, and a session, answer a query: BM25-style evidence read from the text.

Per message and term, each occurrence counts by how it matches: a whole word 1; a word that
merely starts with the term less, the shorter the term (``act`` in "action"); the term inside
a longer word least (``port`` in "import"). A short term typed in lower case counts less
where the text has it in capitals (``uv`` against "UV index"). The sum is weighted by who
wrote the message (prompts, replies and thinking above tool lines) and normalised by its
length, continuously (BM25's ``1 - b + b·len/avg``, no cap).

Per session the normalised counts of each term are added over its messages, then saturated
(``x(k1+1)/(x+k1)``), so evidence adds up with diminishing returns, and weighted by the term's
rarity (idf). A term found only inside longer words is capped at a share of what one whole
word gives. The words as typed, in order (``literal_line``), are evidence of their own: a tool
line that *is* the pasted command counts most, then a tool line holding it, then prose.
Recency is left to break ties (the caller's sort).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from itertools import islice

from indexer.models import ERROR, SUMMARY, TEXT, THINKING, TOOL_CALL, TOOL_RESULT
from indexer.util.named_record import NamedTuple
from indexer.search.candidates import Candidate
from indexer.search.matching import lowered
from indexer.search.plan import SHORT, PlannedTerm, SearchPlan

K1 = 1.2  # saturation: the 1st whole-word match gives 1, the 3rd brings it to 1.6, the limit is 2.2
B = 0.75  # how much length matters
AVG_CHARS = 300  # a typical message (tool lines are shorter, replies longer)
KIND_WEIGHTS = {TEXT: 1.0, THINKING: 0.8, ERROR: 0.8, SUMMARY: 0.6, TOOL_CALL: 0.5, TOOL_RESULT: 0.4}
WHOLE = 0.75  # an occurrence of at least this quality counts as a whole word
PARTIAL_SHARE = 0.4  # a term only ever inside longer words gives at most this share
LINE_WEIGHT = 0.6  # the literal line's evidence, against the sum of its words' idf
EXACT_TOOL_LINE, TOOL_LINE, PROSE_LINE = 3.0, 1.5, 1.0
EXACT_COVERAGE = 0.6  # the pasted line is at least this much of a tool line: "the command it ran"
BEST_MESSAGE_SHARE = 0.5  # of the best message's own score, added to its session's
SHORT_IDF = 0.5  # words no index counts (``-s``, ``up``): known only to be short and common
MAX_OCCURRENCES = 32  # per term and message
MAX_LINE_OCCURRENCES = 8  # of the literal line, per message
SCAN_CHARS = 20_000  # of a long message, only this much is read for evidence


# A planned term as the scan unpacks it: (term, pattern, cjk, ASCII, needle, group).
_TermScan = tuple[PlannedTerm, re.Pattern[str], bool, bool, str, int]


class Evidence(NamedTuple):
    """What one message holds of the query."""

    candidate: Candidate
    whole: tuple[float, ...]  # per planned term: quality-weighted whole-word occurrences
    partial: tuple[float, ...]  # and the rest
    line: float  # weighted occurrences of the literal line
    norm: float  # length normalisation
    weight: float  # who wrote it
    groups: frozenset[int]  # the query's groups it matches

    @property
    def ts(self) -> float:
        return self.candidate.ts or 0.0


def saturate(x: float) -> float:
    return x * (K1 + 1) / (x + K1) if x > 0 else 0.0


def idf(matching: float, total: int) -> float:
    """BM25's inverse document frequency (never negative)."""
    return math.log(1 + (total - matching + 0.5) / (matching + 0.5))


def quality(text: str, i: int, term: PlannedTerm) -> float:
    """How well the occurrence of ``term`` at ``i`` of ``text`` matches: 1 for a whole word.

    A word edge is a character that is no letter or digit, the text's end, or a change from
    lower to upper case inside an identifier (``Agent|Session``)."""
    j = i + len(term.needle)
    free_left, free_right = term.edge_free
    left = free_left or i == 0 or not (c := text[i - 1]).isalnum() or (c.islower() and text[i].isupper())
    right = free_right or j >= len(text) or not (c := text[j]).isalnum() or (text[j - 1].islower() and c.isupper())
    if left and right:
        q = 1.0
    elif left:  # the start of a longer word
        q = term.prefix_quality
    else:
        q = 0.35 if right else 0.25
    typed = term.typed
    if not term.cjk and (seen := text[i:j]) != typed:
        if len(typed) > 3:
            q *= 0.9
        elif typed.islower() and seen[:1].isupper() and seen[1:].islower():
            q *= 0.9  # a capitalised word at a sentence start
        else:
            q *= 0.5  # "uv" typed, "UV" written: another word
    return q


def _find_all(low: str, needle: str) -> list[int]:
    """The first ``MAX_OCCURRENCES`` starts of ``needle`` in ``low``, not overlapping."""
    found: list[int] = []
    step = len(needle)
    i = low.find(needle)
    while i >= 0 and len(found) < MAX_OCCURRENCES:
        found.append(i)
        i = low.find(needle, i + step)
    return found


def scanner(plan: SearchPlan) -> Callable[[Candidate, str], Evidence | None]:
    """The evidence of a message for ``plan`` (None when a short excluded word is in it), with
    what depends only on the plan worked out once: a search scans hundreds of messages. Two
    or more ASCII terms are found by ``str.find`` in the lower-cased text, and the line is
    counted only where one search finds it (the pasted command's 488 messages: 11.1 → 7.7 ms)."""
    excluded = _short_excluded_patterns(plan)
    terms = _term_scans(plan)
    line, line_length = plan.line, plan.line_length
    # Lower-casing costs a pass over the text, a slow one outside ASCII: it pays from two terms
    # on, and for one where the text is ASCII (`error` at 1 GB, 500 messages: 13.4 -> 11.1 ms).
    ascii_terms = _ascii_term_count(terms)
    several = ascii_terms >= 2

    def scan(candidate: Candidate, text: str) -> Evidence | None:
        head = text[:SCAN_CHARS]
        for pattern in excluded:
            if pattern.search(head):
                return None
        low = lowered(head) if several or (ascii_terms and head.isascii()) else None
        whole, partial, groups = _term_evidence(head, low, terms)
        count = _line_occurrences(line, head) if line is not None else 0
        return Evidence(candidate, whole, partial,
                        count * _line_weight(candidate, text, line_length) if count else 0.0,
                        _norm(candidate, text), KIND_WEIGHTS.get(candidate.kind, 0.8), groups)

    return scan


def _short_excluded_patterns(plan: SearchPlan) -> tuple[re.Pattern[str], ...]:
    """The excluded words no index can rule out (short ones): a message holding one is dropped
    by the scan itself."""
    return tuple(t.pattern for t in plan.excluded if t.kind == SHORT and t.needle)


def _term_scans(plan: SearchPlan) -> tuple[_TermScan, ...]:
    """Each planned term with what the scan reads of it, unpacked once per plan rather than per
    message: its pattern, whether it is CJK, whether ``str.find`` can find it (ASCII), its needle
    and its group."""
    return tuple((t, t.pattern, t.cjk, bool(t.needle) and t.pattern.pattern.isascii(), t.needle, t.group)
                 for t in plan.terms)


def _ascii_term_count(terms: tuple[_TermScan, ...]) -> int:
    """How many terms ``str.find`` can look for in the lower-cased text: whether lowering pays."""
    return sum(1 for _, _, cjk, ascii_term, _, _ in terms if ascii_term and not cjk)


def _term_evidence(head: str, low: str | None, terms: tuple[_TermScan, ...]
                   ) -> tuple[tuple[float, ...], tuple[float, ...], frozenset[int]]:
    """Per term, its quality-weighted whole-word and partial occurrences in ``head``, and the
    groups found: ``Evidence``'s fields. ``low`` is ``head`` lower-cased, for ``str.find``.
    One call per message, not per term: the loop is on the search's hot path."""
    whole, partial, groups = [], [], set()
    for term, pattern, cjk, ascii_term, needle, group in terms:
        w = p = 0.0
        if cjk:  # no case, no word edges: every match is whole
            w = float(min(MAX_OCCURRENCES, len(pattern.findall(head))))
        else:
            starts = (_find_all(low, needle) if ascii_term and low is not None
                      else [m.start() for m in islice(pattern.finditer(head), MAX_OCCURRENCES)])
            for i in starts:
                q = quality(head, i, term)
                if q >= WHOLE:
                    w += q
                else:
                    p += q
        if w or p:
            groups.add(group)
        whole.append(w)
        partial.append(p)
    return tuple(whole), tuple(partial), frozenset(groups)


def _line_occurrences(line: re.Pattern[str], head: str) -> int:
    """How often the literal line is in ``head``, counted up to ``MAX_LINE_OCCURRENCES`` (the
    scan calls it only for a plan with a line: most have none)."""
    count = 0
    found = line.search(head)
    while found is not None:
        count += 1
        found = line.search(head, found.end()) if count < MAX_LINE_OCCURRENCES else None
    return count


def _norm(candidate: Candidate, text: str) -> float:
    """Length normalisation: a short message's words weigh more. A tool output is searched by a
    few of its lines (``indexer.text.output_excerpt``), so it never counts as short."""
    length = max(len(text), AVG_CHARS) if candidate.kind == TOOL_RESULT else len(text)
    return 1 - B + B * length / AVG_CHARS


def _line_weight(candidate: Candidate, text: str, line_length: int) -> float:
    if candidate.kind != TOOL_CALL:
        return PROSE_LINE
    # "[Bash] <command> # <description>": the command is what a pasted line is compared with.
    command = text.split("] ", 1)[1] if text.startswith("[") and "] " in text else text
    command = command.rsplit(" # ", 1)[0]
    return EXACT_TOOL_LINE if line_length >= EXACT_COVERAGE * len(command.strip()) else TOOL_LINE


class Weights(NamedTuple):
    """Each planned term's idf, and the literal line's."""

    terms: tuple[float, ...]
    line: float

    @classmethod
    def of(cls, plan: SearchPlan, group_idf: dict[int, float]) -> "Weights":
        terms = tuple(SHORT_IDF if t.kind == SHORT else group_idf.get(t.group, 1.0) for t in plan.terms)
        return cls(terms, LINE_WEIGHT * sum(terms) if plan.line is not None else 0.0)


def _term_score(whole: float, partial: float) -> float:
    if not partial:
        return saturate(whole)
    return max(saturate(whole), PARTIAL_SHARE * saturate(whole + partial))


def message_score(ev: Evidence, weights: Weights) -> float:
    scale = ev.weight / ev.norm
    score = 0.0
    for idf_, whole, partial in zip(weights.terms, ev.whole, ev.partial):
        if whole or partial:
            score += idf_ * _term_score(whole * scale, partial * scale)
    return score + (weights.line * saturate(ev.line / ev.norm) if ev.line else 0.0)


def session_score(evs: list[Evidence], weights: Weights, best: float) -> float:
    """Evidence added up over a session's messages, then saturated per term; plus a share of
    its ``best`` message's score, so words found together in one focused message count for
    more than the same words scattered (a long session matches everything somewhere)."""
    n = len(weights.terms)
    whole, partial = [0.0] * n, [0.0] * n
    line = 0.0
    for ev in evs:
        scale = ev.weight / ev.norm
        for k in range(n):
            whole[k] += ev.whole[k] * scale
            partial[k] += ev.partial[k] * scale
        line += ev.line / ev.norm
    score = sum(idf_ * _term_score(whole[k], partial[k]) for k, idf_ in enumerate(weights.terms))
    score += weights.line * saturate(line)
    return score + BEST_MESSAGE_SHARE * best

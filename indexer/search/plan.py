"""What the indexes can answer for a parsed query, and what is checked in the text itself.

A term of 3+ characters (after folding) is found through the trigram index, a two-character
CJK word through the bigram index; anything shorter (``-s``, ``up``, 表) has no index of its own
and is matched within the messages the other words found. An OR group is found through the
indexes only when every term in it is.
"""

from __future__ import annotations

import re

from indexer.util.named_record import NamedTuple
from indexer.search.matching import line_pattern, term_pattern
from indexer.search.query import Query, Term, is_cjk, searchable_form
from indexer.text.fold import fold

TRIGRAM, BIGRAM, SHORT = "trigram", "bigram", "short"


class PlannedTerm(NamedTuple):
    term: Term
    needle: str  # folded and lower-cased: what is looked for in a message's searchable form
    typed: str  # folded, case as typed: a short word's case tells "uv" from "UV"
    kind: str  # TRIGRAM, BIGRAM or SHORT
    group: int
    pattern: re.Pattern[str]  # finds it in stored text, either script, any case
    edge_free: tuple[bool, bool]  # its first / last character is no letter or digit (or CJK): always a word edge
    cjk: bool  # starts with a CJK character: no spaces, no case; every match is a whole word

    @property
    def prefix_quality(self) -> float:
        """A match at the start of a longer word: "act" in "action" is another word, "config"
        in "configuration" nearly the same one."""
        n = len(self.needle)
        return 0.35 if n <= 3 else 0.6 if n <= 5 else 0.8


class PlannedGroup(NamedTuple):
    index: int  # type: ignore[assignment]  # the group's position; shadows tuple.index, as meant
    terms: tuple[PlannedTerm, ...]
    trigram: str | None  # FTS5 expression for the trigram tables, e.g. ("docker" OR "podman")
    bigram: str | None  # FTS5 expression for the bigram table

    @property
    def indexed(self) -> bool:
        """Found through an index (else matched within the other groups' messages)."""
        return all(t.kind != SHORT for t in self.terms)


class SearchPlan(NamedTuple):
    query: Query
    terms: tuple[PlannedTerm, ...]
    indexed: tuple[PlannedGroup, ...]
    short: tuple[PlannedGroup, ...]
    excluded: tuple[PlannedTerm, ...]
    line: re.Pattern[str] | None  # the words as typed, in order (None for one word or OR)
    line_length: int



def term_kind(text: str) -> str:
    folded = fold(text)
    if len(folded) >= 3:
        return TRIGRAM
    if len(folded) == 2 and all(is_cjk(c) for c in folded):
        return BIGRAM
    return SHORT


def fts_string(text: str, *, unfolded_too: bool = False) -> str:
    """A term as an FTS5 string, so no user input is read as FTS syntax. ``unfolded_too``: also
    the text as typed (an index not yet folded, see indexer.upkeep.refold)."""
    folded = '"' + fold(text).replace('"', '""') + '"'
    if unfolded_too and fold(text) != text:
        return f'({folded} OR "{text.replace(chr(34), chr(34) * 2)}")'
    return folded


def _expression(terms: list[PlannedTerm], kind: str, unfolded_too: bool) -> str | None:
    chosen = [fts_string(t.term.text, unfolded_too=unfolded_too) for t in terms if t.kind == kind]
    return "(" + " OR ".join(chosen) + ")" if chosen else None


def _planned(term: Term, group: int) -> PlannedTerm:
    needle = searchable_form(term.text)

    def free(ch: str) -> bool:
        return not ch.isalnum() or is_cjk(ch)

    return PlannedTerm(term, needle, fold(term.text), term_kind(term.text), group, term_pattern(term.text),
                       (free(needle[0]), free(needle[-1])) if needle else (True, True),
                       bool(needle) and is_cjk(needle[0]))


def make_plan(query: Query, *, unfolded_too: bool = False) -> SearchPlan:
    terms: list[PlannedTerm] = []
    indexed: list[PlannedGroup] = []
    short: list[PlannedGroup] = []
    for n, group in enumerate(query.groups):
        planned = [_planned(t, n) for t in group]
        terms += planned
        g = PlannedGroup(n, tuple(planned), _expression(planned, TRIGRAM, unfolded_too),
                         _expression(planned, BIGRAM, unfolded_too))
        (indexed if g.indexed else short).append(g)
    excluded = tuple(_planned(t, -1) for t in query.excluded)
    words = query.literal_line.split()
    line = line_pattern(tuple(words)) if len(words) >= 2 else None
    return SearchPlan(query, tuple(terms), tuple(indexed), tuple(short), excluded, line,
                      len(" ".join(words)))


def trigram_groups(plan: SearchPlan) -> tuple[PlannedGroup, ...]:
    """The groups made only of trigram terms: ``and_expressions`` joins their expressions."""
    return tuple(g for g in plan.indexed if g.trigram and not g.bigram)


def trigram_texts(group: PlannedGroup) -> list[str]:
    """The group's trigram terms as its expression asks the trigram tables for them (folded)."""
    return [fold(t.term.text) for t in group.terms if t.kind == TRIGRAM]


def and_expressions(plan: SearchPlan) -> tuple[str | None, str | None, list[PlannedGroup]]:
    """For "every group in one message": the trigram expression of the groups that are all
    trigram terms, the bigram expression of those all bigram, and the mixed groups left."""
    trigram = [g.trigram for g in trigram_groups(plan) if g.trigram]  # all of them (trigram_groups)
    bigram = [g.bigram for g in plan.indexed if g.bigram and not g.trigram]
    mixed = [g for g in plan.indexed if g.trigram and g.bigram]
    return (" AND ".join(trigram) or None, " AND ".join(bigram) or None, mixed)

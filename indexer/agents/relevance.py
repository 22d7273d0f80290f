"""The bar a past-session hit must pass before a reminder puts it in front of an agent.

The index matches substrings (trigrams), so ``port`` finds ``import`` and ``support``; a reminder
built on that wastes the agent's tokens on unrelated sessions. Here a hit counts only when every
search word *really* occurs in its message: at the start of a word (``port`` in ``ports``,
``redis_port`` or ``redisPort``, never in ``import``), all of them close together, whole words
preferred. There is no OR fallback that lets one common word carry a hit: when all the words find
nothing, only "all but one" of three or more words is tried.

Candidates come from a ``CandidateSearch``: ``Index.search``'s message view, whose hits are
messages holding every word, which is what the bar asks of a hit. The session-level search
(``by_session``) plugs in the same way, since the bar only reads each hit's message, but it does
not pay here: on the 228 labelled queries of bench/quality/ranking, with each query's words as the terms,
its evidence (3 per session) put the right session among the reminder's hits as often (200) at
twice the time, and its single best message per session less often (195).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from functools import lru_cache

from indexer.models import Hit
from indexer.text.cjk import is_cjk
from indexer.util.named_record import NamedTuple

CANDIDATES_PER_QUERY = 40  # hits read per query before the bar: the index matches substrings
PROXIMITY_CHARS = 600  # every word must occur within this many characters of the others
MAX_POSITIONS = 400  # real matches looked at per word and message (a 100 kB paste stays cheap)
SNIPPET_LEAD, SNIPPET_CHARS = 50, 200

CandidateSearch = Callable[[str], Sequence[Hit]]


class RelevantHit(NamedTuple):
    """A hit that passed the bar: how well it matched and a snippet around the real match."""

    hit: Hit
    query: str  # the query that found it
    words_matched: int  # search words that occur in the message
    whole_words: int  # of those, how many occur as whole words somewhere in the message
    snippet: str

    @property
    def rank_key(self) -> tuple[int, int, float]:
        return (self.words_matched, self.whole_words, self.hit.score)


class RelevantResult(NamedTuple):
    query: str  # the query whose hits passed ("" when none did)
    hits: tuple[RelevantHit, ...]
    searched: tuple[str, ...]  # every query tried, in order


def plain_word(term: str) -> str:
    """A recall term as the words it stands for (``"agent:x"`` is quoted for the parser)."""
    return term[1:-1] if len(term) >= 2 and term[0] == term[-1] == '"' else term


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() and not is_cjk(ch)


def _starts_word(text: str, i: int) -> bool:
    """A word starts at ``i``: after a non-letter, at a camelCase hump, or where letters and
    digits meet (``redisPort``, ``redis_port``, ``v2port``)."""
    if i == 0:
        return True
    before, here = text[i - 1], text[i]
    if not _is_word_char(before):
        return True
    if before.islower() and here.isupper():
        return True
    return before.isdigit() != here.isdigit()


def _ends_word(text: str, j: int) -> bool:
    if j >= len(text):
        return True
    before, after = text[j - 1], text[j]
    if not _is_word_char(after):
        return True
    if before.islower() and after.isupper():
        return True
    return before.isdigit() != after.isdigit()


@lru_cache(maxsize=64)
def _pattern(word: str) -> re.Pattern[str]:
    return re.compile(re.escape(word), re.IGNORECASE)


def real_matches(text: str, word: str) -> list[tuple[int, bool]]:
    """(position, whole word) of each occurrence of ``word`` in ``text`` that starts a word.

    Words written without spaces (CJK) match anywhere; so does a word that itself begins or
    ends with punctuation (``.env``, ``--force``) on that side."""
    if not word:
        return []
    cjk = any(is_cjk(ch) for ch in word)
    check_start = not cjk and _is_word_char(word[0])
    check_end = not cjk and _is_word_char(word[-1])
    found: list[tuple[int, bool]] = []
    for m in _pattern(word).finditer(text):
        if check_start and not _starts_word(text, m.start()):
            continue
        found.append((m.start(), not check_end or _ends_word(text, m.end())))
        if len(found) >= MAX_POSITIONS:
            break
    return found


def closest_window(positions: list[list[int]]) -> tuple[int, int] | None:
    """The smallest (start, end) span holding one position of every list; None if one is empty."""
    if not positions or any(not p for p in positions):
        return None
    merged = sorted((pos, which) for which, plist in enumerate(positions) for pos in plist)
    need, counts, have = len(positions), [0] * len(positions), 0
    best: tuple[int, int] | None = None
    left = 0
    for right, (pos, which) in enumerate(merged):
        counts[which] += 1
        if counts[which] == 1:
            have += 1
        while have == need:
            start = merged[left][0]
            if best is None or pos - start < best[1] - best[0]:
                best = (start, pos)
            counts[merged[left][1]] -= 1
            if counts[merged[left][1]] == 0:
                have -= 1
            left += 1
    return best


def snippet_at(text: str, start: int) -> str:
    """About ``SNIPPET_CHARS`` characters of ``text`` from a little before ``start``, on one line."""
    lo = max(0, start - SNIPPET_LEAD)
    piece = " ".join(text[lo:start + SNIPPET_CHARS].split())
    return ("…" if lo > 0 else "") + piece + ("…" if start + SNIPPET_CHARS < len(text) else "")


def judge(hit: Hit, words: Sequence[str], query: str) -> RelevantHit | None:
    """``hit`` if every word really occurs in its message, all within ``PROXIMITY_CHARS``."""
    text = hit.message.text
    matches = [real_matches(text, w) for w in words]
    window = closest_window([[pos for pos, _ in m] for m in matches])
    if window is None or window[1] - window[0] > PROXIMITY_CHARS:
        return None
    whole = sum(1 for m in matches if any(is_whole for _, is_whole in m))
    return RelevantHit(hit, query, len(words), whole, snippet_at(text, window[0]))


def best_per_session(found: list[RelevantHit], limit: int) -> list[RelevantHit]:
    best: dict[int, RelevantHit] = {}
    for r in found:
        held = best.get(r.hit.session.id)
        if held is None or r.rank_key > held.rank_key:
            best[r.hit.session.id] = r
    return sorted(best.values(), key=lambda r: r.rank_key, reverse=True)[:limit]


def word_subsets(terms: Sequence[str], required: Sequence[str] = ()) -> list[tuple[str, ...]]:
    """The word sets to try, strictest first: all of them; then, for three or more, every set
    that drops one word, the least specific (shortest) word dropped first; ``required`` words
    are never dropped."""
    terms = tuple(terms)
    if len(terms) < 3:
        return [terms]
    by_specificity = sorted((t for t in terms if t not in required), key=lambda t: (len(t), t))
    rest = [tuple(t for t in terms if t != dropped) for dropped in by_specificity]
    return [terms, *[r for r in rest if len(r) == len(terms) - 1]]


def relevant_hits(search: CandidateSearch, terms: Sequence[str], *, limit: int,
                  deadline: float | None = None, required: Sequence[str] = ()) -> RelevantResult:
    """The best hit of each session, at most ``limit``, that passes the bar for the strictest
    word set that has any; ``search(query)`` gives the candidates. Stops at ``deadline``
    (``time.monotonic()``)."""
    searched: list[str] = []
    for subset in word_subsets([t for t in terms if plain_word(t)], required):
        if deadline is not None and searched and time.monotonic() > deadline:
            break
        query = " ".join(subset)
        searched.append(query)
        words = [plain_word(t) for t in subset]
        found = [r for hit in search(query) if (r := judge(hit, words, query)) is not None]
        if found:
            return RelevantResult(query, tuple(best_per_session(found, limit)), tuple(searched))
    return RelevantResult("", (), tuple(searched))


"""The words of a text as the word index keeps them, and the words a query term implies.

The word index only narrows a substring search (``indexer.search.rare_words``): it must hold, for
every message, every word a trigram match could find in it. That holds because a query run
made only of ``[a-z0-9_]`` (after the trigram tokenizer's case folding) lies, wherever it
occurs in a text, inside one maximal run of such characters: a *token*. So a message can
match the run only if one of its tokens contains it.

The fold is SQLite's, not Python's: the trigram tokenizer lower-cases ASCII and folds exactly
two other characters into ``[a-z0-9_]`` (U+212A KELVIN SIGN → k, U+017F LONG S → s; found by
matching every code point through it). ``str.lower`` would differ (``İ`` → ``i̇``), and a
character folded on one side only would split a token the index must see whole.
``tests/core/text/test_word_tokens.py`` checks the rule against FTS5 itself.

A token longer than ``CHUNK`` is kept as overlapping pieces (every ``STRIDE`` characters), so
any run of at most ``MAX_RUN`` characters lies inside one piece; a longer query run is
narrowed by its first ``MAX_RUN`` characters.
"""

from __future__ import annotations

import re

MIN_RUN = 4  # shorter words are cheap on the trigram index already
CHUNK = 64
STRIDE = 32
MAX_RUN = CHUNK - STRIDE + 1

# What the trigram tokenizer folds into [a-z0-9_], and into what.
TOKEN_FOLD = {**{c: c + 32 for c in range(ord("A"), ord("Z") + 1)}, 0x212A: ord("k"), 0x017F: ord("s")}
_RUN = re.compile(r"[a-z0-9_]{%d,}" % MIN_RUN)


def token_fold(text: str) -> str:
    """``text`` with every character the trigram tokenizer folds into ``[a-z0-9_]`` folded, and
    no other character turned into one: so its maximal ``[a-z0-9_]`` runs are its tokens.

    ``str.lower`` does this in C for all but two characters (checked over every code point):
    it leaves LONG S, and turns İ into "i" and a combining dot, so İ is first swapped for the
    dotless ı (no token character either way)."""
    if text.isascii():
        return text.lower()
    return text.replace("\u0130", "\u0131").lower().replace("\u017f", "s")


def _pieces(token: str) -> list[str]:
    out = []
    for start in range(0, len(token), STRIDE):
        out.append(token[start : start + CHUNK])
        if start + CHUNK >= len(token):
            break
    return out


def word_terms(text: str) -> list[str]:
    """The distinct terms the word index keeps for ``text``: its folded tokens of ``MIN_RUN``
    or more characters (long ones in pieces), in order of first appearance.

    Every step runs in C (the helper pays it for each message): one fold, one ``findall``,
    a dict for the distinct ones; only a message with a token over ``CHUNK`` goes on in Python."""
    terms = dict.fromkeys(_RUN.findall(token_fold(text)))
    if terms and max(map(len, terms)) > CHUNK:
        terms = dict.fromkeys(piece for token in terms for piece in (_pieces(token) if len(token) > CHUNK else (token,)))
    return list(terms)


def word_string(text: str) -> str:
    """``word_terms`` as the ``words`` table takes them: one string, a space between terms."""
    return " ".join(word_terms(text))


def query_run(needle: str) -> str | None:
    """The run a message matching ``needle`` (a trigram term, as sent to FTS5) must hold in one
    of its tokens: the longest of ``MIN_RUN``+ characters, cut to ``MAX_RUN``; None if none."""
    runs = _RUN.findall(token_fold(needle))
    if not runs:
        return None
    return max(runs, key=len)[:MAX_RUN]


def query_runs(needle: str) -> list[str]:
    """Every run (``query_run``'s kind) of ``needle``, each cut to ``MAX_RUN``, longest first:
    a message matching ``needle`` holds each inside one of its tokens."""
    runs = dict.fromkeys(run[:MAX_RUN] for run in _RUN.findall(token_fold(needle)))
    return sorted(runs, key=len, reverse=True)

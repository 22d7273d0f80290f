"""Traditional → Simplified Chinese folding, so 遷移 and 迁移 find each other.

Indexing stores each message's text as it is, but the trigram and bigram indexes receive the
folded form; queries are folded the same way. The fold maps one character to one character
(length-preserving), so a match found in the folded text is at the same offsets in the
original, and ``fold(a + b) == fold(a) + fold(b)``: a substring of a folded text is the fold
of a substring. That is why it is a per-character table rather than OpenCC's phrase
conversion, which maps 乾淨 → 干净 but leaves 乾隆 alone depending on the neighbours.

The table comes from OpenCC's Traditional → Simplified conversion (the ``opencc`` package),
each character converted alone. It ships beside this module (``fold_table.txt``, written by
``scripts/make_fold_table.py``; a test checks it is what OpenCC gives) and is read on first use
(~2 ms), only by a process that meets a CJK character: converting every character with OpenCC
took ~22 ms of each such process (a hook's index run, a search typed in Chinese). Being a file,
it also folds alike whatever OpenCC version is installed when the index is searched. Japanese
kanji fold too (設定 → 设定): harmless, since both sides fold alike.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable  # loaded with collections already; a search loads no typing (a test holds it)
from _thread import allocate_lock  # what threading.Lock/local are; threading costs ~1-2 ms to import

# Where Traditional characters live: CJK unified ideographs, extension A, compatibility forms.
_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))


@functools.cache
def _may_fold() -> re.Pattern[str]:
    """A character of ``_RANGES``; compiled on first use (its big ranges take ~3 ms), by a
    process that meets text that is not ASCII."""
    return re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _RANGES) + "]")


_table: dict[int, str] | None = None
_variants: dict[str, tuple[str, ...]] | None = None
_lock = allocate_lock()


TABLE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fold_table.txt")


def _build() -> dict[int, str]:
    try:
        with open(TABLE_FILE, encoding="utf-8") as fh:
            return table_from_text(fh.read())
    except OSError:  # an install without its data file: what the file would hold
        return table_from_opencc()


def table_from_text(text: str) -> dict[int, str]:
    """``fold_table.txt``'s lines: a Traditional character, then its Simplified one."""
    return {ord(line[0]): line[1] for line in text.split("\n") if len(line) == 2}


def table_text(table: dict[int, str]) -> str:
    return "".join(f"{chr(code)}{target}\n" for code, target in sorted(table.items()))


def table_from_opencc() -> dict[int, str]:
    """The table as OpenCC's ``t2s`` makes it, one character at a time."""
    import opencc

    chars = [chr(c) for lo, hi in _RANGES for c in range(lo, hi + 1)]
    # One conversion call for every character, a newline between each: no phrase can form.
    converted = opencc.OpenCC("t2s").convert("\n".join(chars)).split("\n")
    if len(converted) != len(chars):  # never seen; an empty table folds nothing rather than wrongly
        return {}
    return {ord(a): b for a, b in zip(chars, converted) if a != b and len(b) == 1}


def fold_table() -> dict[int, str]:
    """The character table (code point → folded character), built once per process."""
    global _table
    if _table is None:
        with _lock:
            if _table is None:
                _table = _build()
    return _table


@functools.cache
def _fold_runs() -> Callable[[str], str]:
    """Folds each run of characters the table folds; made once a process has folded
    ``TRANSLATED_FIRST`` characters (a pattern of ~2,700 characters, 4.5-8 ms to compile)."""
    table = fold_table()
    runs = re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(table)) + "]+")
    return functools.partial(runs.sub, lambda match: match.group().translate(table))


TRANSLATED_FIRST = 100_000  # characters a process folds with translate before it compiles the runs' pattern
_translated = 0


def fold(text: str) -> str:
    """``text`` with Traditional characters replaced by their Simplified form; same length.

    ``str.translate`` looks up every character of a text that is not ASCII (~70 ns each, a code
    block's ASCII too), while Simplified text holds none to fold and mixed text few: once a
    process has folded ``TRANSLATED_FIRST`` characters (an index run over many logs), only
    the runs of characters the table folds are translated. On the tool output of a generated
    tree of mixed scripts 1.33 -> 1.06-1.17 s, of Simplified text 0.21 -> 0.03 s. Before that,
    a search typed in Chinese or a hook's small run does not pay for the pattern's compiling.
    The count is a heuristic: a race between threads changes when, not what, it folds."""
    global _translated
    if text.isascii() or not _may_fold().search(text):
        return text
    if _translated < TRANSLATED_FIRST:
        _translated += len(text)
        return text.translate(fold_table())
    return _fold_runs()(text)


def index_form(text: str) -> str | None:
    """What the search indexes receive for ``text`` when that differs from the text itself
    (``None``: index the text as it is). Used wherever text is indexed."""
    folded = fold(text)
    return folded if folded != text else None


def variants(char: str) -> tuple[str, ...]:
    """Every character that folds to the same as ``char`` (itself included), e.g. 滚 → 滚, 滾.

    For a one-character term matched by a plain substring test on stored (unfolded) text."""
    global _variants
    if _variants is None:
        groups: dict[str, list[str]] = {}
        for code, target in fold_table().items():
            groups.setdefault(target, []).append(chr(code))
        _variants = {k: tuple(v) for k, v in groups.items()}
    target = fold(char)
    return (target, *(v for v in _variants.get(target, ()) if v != target))

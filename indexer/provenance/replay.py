"""Replay a file's recorded edits in time order, to learn what each one *wrote*.

An ``Edit`` says itself what it changed (``old_string`` against ``new_string``), but a whole-file
``Write`` does not: rewritten with most lines as they were, it wrote only the lines that differ
from the file before. The replay keeps the file's text while every change to it is known, and
forgets it (None) when one is not (a person's edit the logs cannot see shows up as an edit whose
``old_string`` is not there; ``sed -i``); a ``Write`` onto a forgotten file counts every line as
written, and git's windows (``indexer.provenance.git_window``) then sort out what it merely kept.
A whole read of the file (``Seen``: Claude reads before it writes) makes it known again, and the
first thing any log did to the file, when that is a whole-file write, made it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from indexer.models import Message, Session
from indexer.provenance.edits import Blind, Change, Hunk, Replace, Sed, Seen, Whole, distinctive, new_indices


@dataclass(frozen=True, slots=True)
class Written:
    """One edit's lines in the file: ``block`` as they stood after it (the anchor), ``new`` the
    positions in it that this edit wrote. ``loose_ends``: the block's first and last lines may be
    parts of longer lines (an ``old_string`` cut mid-line)."""
    session: Session
    message: Message
    block: tuple[str, ...]
    new: frozenset[int]
    loose_ends: bool = False
    blind: bool = False  # a whole-file write over text the replay did not know: it may have kept lines




def replay(changes: Iterable[tuple[Session, Message, Change]]) -> list[Written]:
    """What each change wrote, oldest first; ``changes`` come in the order they were made."""
    known: list[str] | None = None
    out: list[Written] = []
    seen: set[str] = set()  # distinctive lines earlier edits wrote
    first = True
    just_read = False  # the file's text was read whole since the last change: known exactly
    for session, message, change in changes:
        if isinstance(change, Seen):  # what the file held when the agent read it: known again
            known = list(change.lines)
            first = False
            just_read = True
            continue
        if first and isinstance(change, Whole) and not change.append:
            known = []  # the first thing any log did to the file was to write it whole: it made it
        first = False
        blind = isinstance(change, Whole) and not change.append and known is None
        after_read, just_read = just_read, False
        known, written = _apply(known, change)
        if written is None:
            continue
        block, new, loose = written
        if isinstance(change, Whole) and not change.append and not after_read:
            # A line an earlier edit wrote, word for word, was kept, not written again: the
            # replay's copy may be out of date where a person moved or changed lines. (Right
            # after a whole read it is not: a line the write put elsewhere, it moved.)
            new = frozenset(i for i in new if block[i] not in seen)
        seen.update(block[i] for i in new if distinctive(block[i]))
        if new:
            out.append(Written(session, message, block, new, loose, blind))
    return out


def _apply(known: list[str] | None, change: Change
           ) -> tuple[list[str] | None, tuple[tuple[str, ...], frozenset[int], bool] | None]:
    if isinstance(change, Seen):
        return list(change.lines), None
    if isinstance(change, Blind):
        return ([] if change.deleted else None), None
    if isinstance(change, Whole):
        if change.append:
            return (None if known is None else known + list(change.lines)), (change.lines, frozenset(range(len(change.lines))), False)
        before = tuple(known) if known is not None else ()
        return list(change.lines), (change.lines, new_indices(before, change.lines), False)
    if isinstance(change, Replace):
        return _replace(known, change)
    if isinstance(change, Sed):
        return _sed(known, change)
    return _hunk(known, change)


def _sed(known: list[str] | None, change: Sed
         ) -> tuple[list[str] | None, tuple[tuple[str, ...], frozenset[int], bool] | None]:
    """The file after ``sed -i``: a deletion writes nothing; a substitution wrote the lines it
    changed (the block is the whole file, which anchors them)."""
    if known is None:
        return None, None
    if change.delete is not None:
        first, last = change.delete
        return known[:first - 1] + known[last:], None
    after = [line.replace(change.old, change.new) if change.every else line.replace(change.old, change.new, 1)
             for line in known]
    changed = frozenset(i for i, (a, b) in enumerate(zip(known, after)) if a != b)
    return after, ((tuple(after), changed, False) if changed else None)


def _replace(known: list[str] | None, change: Replace
             ) -> tuple[list[str] | None, tuple[tuple[str, ...], frozenset[int], bool]]:
    """Applied to the text (an ``old_string`` may start or end mid-line); the block is then the
    whole lines it covers, so nothing in it is loose."""
    fallback = (change.new, new_indices(change.old, change.new), True)
    if known is None:
        return None, fallback
    text, old, new = "\n".join(known), "\n".join(change.old), "\n".join(change.new)
    at = text.find(old) if old else -1
    if at < 0:  # changed since by someone the logs do not show: put it where it fits best
        return _fitted(known, change.old, change.new), fallback
    start_line = text.count("\n", 0, at)
    first_start = text.rfind("\n", 0, at) + 1
    end = at + len(old)
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    old_block = tuple(text[first_start:line_end].split("\n"))
    replaced = text.replace(old, new) if change.every else text[:at] + new + text[end:]
    after = replaced.split("\n")
    new_len = len(old_block) + new.count("\n") - old.count("\n")
    new_block = tuple(after[start_line:start_line + new_len])
    return after, (new_block, new_indices(old_block, new_block), False)


def _hunk(known: list[str] | None, change: Hunk
          ) -> tuple[list[str] | None, tuple[tuple[str, ...], frozenset[int], bool]]:
    written = (change.new, new_indices(change.old, change.new), False)
    if known is None:
        return None, written
    at = _find_lines(known, change.old)
    if at < 0:
        return _fitted(known, change.old, change.new), written
    return known[:at] + list(change.new) + known[at + len(change.old):], written


def _find_lines(lines: list[str], wanted: tuple[str, ...]) -> int:
    if not wanted:
        return -1
    n = len(wanted)
    for i in range(len(lines) - n + 1):
        if lines[i] == wanted[0] and tuple(lines[i:i + n]) == wanted:
            return i
    return -1


def _fitted(known: list[str], old: tuple[str, ...], new: tuple[str, ...]) -> list[str] | None:
    """``known`` with ``old`` replaced where most of its lines are (a person changed some of
    them since); None when too little of it is there to place it."""
    votes: dict[int, int] = {}
    where: dict[str, list[int]] = {}
    for j, line in enumerate(known):
        if line.strip():
            where.setdefault(line, []).append(j)
    for i, line in enumerate(old):
        for j in where.get(line, ()):
            votes[j - i] = votes.get(j - i, 0) + 1
    if not votes:
        return None
    best = max(votes.values())
    if best * 2 < sum(1 for line in old if line.strip()):
        return None
    at = max(0, min(offset for offset, n in votes.items() if n == best))
    return known[:at] + list(new) + known[at + len(old):]

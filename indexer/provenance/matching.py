"""Match what edits wrote against the file as it is now, newest edit first.

Each line goes to the newest edit that wrote it and whose block still stands around it: the
block is placed where most of its distinctive lines are (votes per offset, so a block is found
again after lines above it moved it down), aligned there with ``difflib``, and its *new* lines
that landed on a line nobody newer claimed are its; a new line the alignment left out that occurs
once in the block and once in the file is found where it moved to. A line that says little on its own (blank,
``}``, ``else:``) is only claimed inside a placement some distinctive line anchors: a lone brace
never pulls a session onto a person's line. Git's window (``LineCommit``) rules out edits made
outside the time the line's commit allows. A whole-file write over text nobody saw whole comes
last: what it kept as it was, older edits explain first.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Sequence

from indexer.provenance.edits import distinctive
from indexer.provenance.replay import Written

SLACK_LINES = 40  # lines of other edits a block may have gained inside it and still be found
Allowed = Callable[[Written, int], bool]


def claim_lines(current: Sequence[str], written: list[Written], allowed: Allowed) -> list[Written | None]:
    """For each line of ``current``, the edit that last wrote it, or None."""
    claimed: list[Written | None] = [None] * len(current)
    where: dict[str, list[int]] = {}
    for j, line in enumerate(current):
        if distinctive(line):
            where.setdefault(line, []).append(j)
    # A whole-file write over unknown text claims only what no edit that knew what it wrote did.
    ordered = [e for e in reversed(written) if not e.blind] + [e for e in reversed(written) if e.blind]
    for edit in ordered:
        # A write over unknown text may merely have kept a line a person moved: no moves for it
        # (git's windows do not tell, since git sees the write's rewrite as the line's commit).
        for j in _placed(current, edit, where, claimed, moves=not edit.blind):
            if claimed[j] is None and allowed(edit, j):
                claimed[j] = edit
    return claimed


def _placed(current: Sequence[str], edit: Written, where: dict[str, list[int]],
            claimed: list[Written | None], *, moves: bool = True) -> list[int]:
    """The lines of ``current`` this edit's new lines sit on, in its best placement."""
    offset = _best_offset(edit, where, claimed)
    if offset is None:
        return _loose_single(current, edit, claimed) if edit.loose_ends else []
    low = max(0, offset - SLACK_LINES)
    high = min(len(current), offset + len(edit.block) + SLACK_LINES)
    window = current[low:high]
    pairs: dict[int, int] = {}
    for block in difflib.SequenceMatcher(None, edit.block, window, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            pairs[block.a + k] = low + block.b + k
    if edit.loose_ends:
        _match_loose_ends(current, edit, pairs)
    if not any(distinctive(edit.block[i]) for i in pairs):
        return []
    if moves:
        _match_moved(edit, where, pairs)
    return [j for i, j in sorted(pairs.items()) if i in edit.new]


def _match_moved(edit: Written, where: dict[str, list[int]], pairs: dict[int, int]) -> None:
    """A new line the alignment left out (moved since, out of order) that occurs once in the
    block and once in the file, distinctive: it is that line."""
    taken = set(pairs.values())
    counts: dict[str, int] = {}
    for line in edit.block:
        counts[line] = counts.get(line, 0) + 1
    for i in edit.new:
        line = edit.block[i]
        found = where.get(line, ())
        if i not in pairs and counts[line] == 1 and len(found) == 1 and found[0] not in taken:
            pairs[i] = found[0]


def _best_offset(edit: Written, where: dict[str, list[int]], claimed: list[Written | None]) -> int | None:
    votes: Counter[int] = Counter()
    for i, line in enumerate(edit.block):
        for j in where.get(line, ()):
            votes[j - i] += 2 if claimed[j] is None else 1  # free lines first: a copy elsewhere may be newer
    if not votes:
        return None
    best = max(votes.values())
    return min(offset for offset, n in votes.items() if n == best)


def _match_loose_ends(current: Sequence[str], edit: Written, pairs: dict[int, int]) -> None:
    """An edit's first or last line cut mid-line sits inside the file's line next to its
    matched neighbour."""
    last = len(edit.block) - 1
    for i, step in ((0, 1), (last, -1)):
        if i in pairs or (i + step) not in pairs:
            continue
        j = pairs[i + step] - step
        if 0 <= j < len(current) and edit.block[i] and edit.block[i] in current[j]:
            pairs[i] = j


def _loose_single(current: Sequence[str], edit: Written, claimed: list[Written | None]) -> list[int]:
    """A one-line edit inside a line (``old_string`` a few words): the one free line holding it."""
    if len(edit.block) != 1 or 0 not in edit.new or not distinctive(edit.block[0]):
        return []
    found = [j for j, line in enumerate(current) if edit.block[0] in line]
    return found if len(found) == 1 else []

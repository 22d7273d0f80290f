"""Turning a scratchpad item into an episodic entry: the prefilled suggestion."""

from __future__ import annotations

import re
from collections.abc import Iterable

from indexer.memory.episodic import EpisodicDraft
from indexer.memory.scratchpad import ScratchpadItem

# Small cue lists; the user corrects the guess in the form.
_CUES = (
    ("failure", ("fail", "error", "broke", "bug", "crash", "mistake",
                 "失敗", "錯誤", "誤", "壞")),
    ("lesson", ("lesson", "learned", "learnt", "never ", "always ",
                "教訓", "學到", "記得")),
    ("decision", ("decide", "decision", "chose", "choose", "switch to", "決定", "選擇", "改用")),
)


def guess_type(item: ScratchpadItem) -> str:
    """'milestone' for a ticked checklist item, else a cue-word guess, else 'note'."""
    if item.checked:
        return "milestone"
    low = item.text.lower()
    for kind, cues in _CUES:
        if any(c in low for c in cues):
            return kind
    return "note"


def suggest_tags(text: str, known_tags: Iterable[str]) -> tuple[str, ...]:
    """Known tags whose words all appear in ``text`` (substring, so CJK tags work too)."""
    low = text.lower()
    out = []
    for tag in known_tags:
        words = [w for w in re.split(r"[-_/\s]+", tag.lower()) if w]
        if words and all(w in low for w in words):
            out.append(tag)
    return tuple(out)


def suggest_draft(item: ScratchpadItem, known_tags: Iterable[str]) -> EpisodicDraft:
    return EpisodicDraft(
        summary=item.text,
        type=guess_type(item),
        tags=suggest_tags(item.text, known_tags),
    )

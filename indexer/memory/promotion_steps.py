"""Promoting scratchpad items to episodic entries across two files: both written or neither.

Marking a line: the line is marked with the new entry's id first, then the entry is appended.
If appending fails the mark is taken back, and if even that fails the error says so: running
the same promotion again then finishes it with the id the line already names, so a retry
never adds the entry twice (``MemoryStore.promote``). Removing a line: the entry is appended
first and taken back if the line cannot be removed. Finishing a task: the entries first, then
the history copy and the cleared scratchpad, the entries taken back on an error.

Call with the memory folder's lock held.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.util.fileio import atomic_write_text
from indexer.memory.episodic import EpisodicDraft, EpisodicEntry, EpisodicLog
from indexer.memory.scratchpad import Scratchpad, ScratchpadItem, mark_line


class PromotionUnfinishedError(RuntimeError, ThreadbackError):
    """The line was marked but the entry could not be written, nor the mark taken back."""
    kind = errors.BUSY

    def __init__(self, line: int, entry_id: str, cause: BaseException):
        super().__init__(
            f"scratchpad line {line} now points to {entry_id}, but the entry could not be written "
            f"({cause}); run the same promote again to finish it (it will not be added twice)"
        )


def promote_item(
    pad: Scratchpad, log: EpisodicLog, line: int, item: ScratchpadItem, draft: EpisodicDraft, now: datetime,
    *, remove: bool,
) -> EpisodicEntry:
    if remove:
        before = log.snapshot()
        entry = log.append([draft], now)[0]
        try:
            pad.save_text(pad.removed_text(line))
        except BaseException:
            log.put_back(before)
            raise
        return entry
    if item.promoted_to:  # marked by a promotion cut short: finish it under that id
        return log.append([draft], now, ids=[item.promoted_to])[0]
    entry_id = log.new_id()
    previous = pad.text
    pad.save_text(pad.marked_text(line, entry_id))
    try:
        return log.append([draft], now, ids=[entry_id])[0]
    except BaseException as exc:
        try:
            pad.save_text(previous)
        except Exception:  # noqa: BLE001 - say exactly what state the files are in
            raise PromotionUnfinishedError(line, entry_id, exc) from exc
        raise


def finish_items(
    pad: Scratchpad, log: EpisodicLog, lines: list[int], drafts: list[EpisodicDraft], now: datetime, history_dir: Path
) -> tuple[list[EpisodicEntry], Path | None]:
    """Append the drafts, save the scratchpad (items marked) to ``history_dir``, clear it."""
    before = log.snapshot()
    promoted = log.append(drafts, now) if drafts else []
    try:
        history = pad.text.split("\n")
        for line, entry in zip(lines, promoted):
            history[line - 1] = mark_line(history[line - 1], entry.id)
        history_text = "\n".join(history)
        history_path = None
        if history_text.strip():
            history_path = _history_path(history_dir, now)
            atomic_write_text(history_path, history_text, backup=False)
        pad.save_text("")
    except BaseException:
        if promoted:
            log.put_back(before)
        raise
    return promoted, history_path


def _history_path(folder: Path, now: datetime) -> Path:
    stamp = now.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = folder / f"scratchpad-{stamp}.md"
    n = 1
    while path.exists():
        path = folder / f"scratchpad-{stamp}-{n}.md"
        n += 1
    return path

"""What the three memory tabs share: the store and clock handed down, and the messages up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from textual.containers import Vertical
from textual.message import Message

from indexer.memory import ChangedOnDiskError, MemoryStore


class MemoryTierPane(Vertical):
    """A tab over one tier. ``store`` and ``now`` are set by the screen (attributes down)."""

    @dataclass
    class ChangedOnDisk(Message):
        """A write was refused because the file changed since it was loaded."""

        pane: "MemoryTierPane"
        error: ChangedOnDiskError

    @dataclass
    class Written(Message):
        """This pane wrote to the memory folder; other tabs may need to re-read."""

        pane: "MemoryTierPane"

    def __init__(
        self,
        store: MemoryStore,
        now: Callable[[], datetime],
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.store = store
        self.now = now

    def load(self) -> None:
        """Re-read the store (after a reload or a folder switch) and redraw."""
        raise NotImplementedError

    def refresh_view(self) -> None:
        """Redraw from the store without discarding unsaved edits (another tab wrote)."""
        self.load()

    def has_unsaved_edits(self) -> bool:
        return False

    def refused(self, error: ChangedOnDiskError) -> None:
        self.post_message(self.ChangedOnDisk(self, error))

    def written(self) -> None:
        self.post_message(self.Written(self))

"""The logs a run has to read, kept compact until each is read.

A cold build knows every log before it reads the first (it reads the newest first), so it holds
one entry per log for the whole run. As ``FileJob`` objects with their stat numbers, 126,000
small logs held ~110 MB of the main process; here an entry is its folder's number, its file
name's bytes in one shared buffer, four numbers in an array and two bytes, and a ``FileJob`` is
made only when the log is read (issue 38: under 120 MB a process at any size). As one ``str``
each, 112,340 paths held ~19 MB of a 20 GB build's main process; their names and folder
numbers take ~6 MB.
"""

from __future__ import annotations

import os
from array import array
from dataclasses import dataclass
from typing import Iterator

from indexer.sources.base import SessionMeta
from indexer.store.rows import FileRow
from indexer.text.storable import storable_path

_FIELDS = 4  # size, mtime_ns, inode, ctime_ns
_NAME_ERRORS = "surrogatepass"  # any str a path can be comes back as it went in


@dataclass(slots=True)
class FileJob:
    """What reading one file needs: where it is, what it looked like, what we knew of it. A
    build holds one per log to read until the run ends, so it keeps no more than this (slots;
    no session for a new file)."""

    agent: str
    path: str
    size: int
    mtime_ns: int
    inode: int
    row: FileRow | None
    meta: SessionMeta | None  # the session as indexed so far (None for a new file)
    ctime_ns: int = 0
    from_start: bool = False  # read it whole even if it only seems to have grown
    key: str = ""  # ``path`` as stored in the index and shown (see ``storable_path``)
    archive_root: str = ""  # where the file's archived copy is kept; "" when the archive is off
    # A whole-document log read again: its stored messages' fingerprints (indexer.ingest.kept_rows)
    kept_prints: bytes = b""

    def __post_init__(self) -> None:
        if not self.key:
            self.key = storable_path(self.path)

    @property
    def mtime(self) -> float:
        """Seconds, for how long ago it was written."""
        return self.mtime_ns / 1e9


class JobList:
    """Logs to read, in the order they were added until ``sort_newest_first``."""

    def __init__(self, archive_root: str = ""):
        self._archive_root = archive_root
        self._empty()

    def _empty(self) -> None:
        self._agents: list[str] = []  # the few agent names; each entry keeps its position
        self._agent_of = bytearray()
        self._from_start = bytearray()
        self._folders: list[str] = []  # each ending in its separator
        self._folder_at: dict[str, int] = {}
        self._folder_of = array("I")
        self._names = bytearray()  # every file name's UTF-8 bytes, one after another
        self._name_ends = array("Q")
        self._numbers = array("q")
        self._keys: dict[int, str] = {}  # only where the stored key differs from the path
        # Logs indexed before: their row, session, and for a whole document its messages' prints
        self._known: dict[int, tuple[FileRow, SessionMeta | None, bytes]] = {}

    def add(self, agent: str, path: str, key: str, st: os.stat_result,
            known: tuple[FileRow, SessionMeta | None, bytes] | None, from_start: bool = False) -> None:
        """One log to read; ``known``: its row and session as indexed (None for a new log), and
        for a whole document its stored messages' prints (``indexer.ingest.kept_rows``)."""
        at = len(self._folder_of)
        if agent not in self._agents:
            self._agents.append(agent)
        self._agent_of.append(self._agents.index(agent))
        self._from_start.append(int(from_start))
        cut = path.rfind(os.sep) + 1
        folder = path[:cut]
        number = self._folder_at.get(folder)
        if number is None:
            number = self._folder_at[folder] = len(self._folders)
            self._folders.append(folder)
        self._folder_of.append(number)
        self._names += path[cut:].encode("utf-8", _NAME_ERRORS)
        self._name_ends.append(len(self._names))
        self._numbers.extend((st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns))
        if key != path:
            self._keys[at] = key
        if known is not None:
            self._known[at] = known

    def sort_newest_first(self) -> None:
        """Newest modification first; logs modified in the same clock tick (a checkout, a copy:
        the file system's clock moves every few ms) by path, last first, so their order, and the
        ids their messages get, do not depend on the order a folder lists them in. Paths are
        built for the ties alone: a key with every log's path would hold them all at once, the
        memory this list's packed form saves (issue 38)."""
        numbers = self._numbers
        order = sorted(range(len(self)), key=lambda i: numbers[i * _FIELDS + 1], reverse=True)
        start = 0
        while start < len(order):
            end = start + 1
            mtime = numbers[order[start] * _FIELDS + 1]
            while end < len(order) and numbers[order[end] * _FIELDS + 1] == mtime:
                end += 1
            if end - start > 1:
                order[start:end] = sorted(order[start:end], key=self.path, reverse=True)
            start = end
        self._agent_of = bytearray(self._agent_of[i] for i in order)
        self._from_start = bytearray(self._from_start[i] for i in order)
        self._folder_of = array("I", (self._folder_of[i] for i in order))
        names = bytearray()
        ends = array("Q")
        for i in order:
            names += self._names[self._name_start(i):self._name_ends[i]]
            ends.append(len(names))
        self._names, self._name_ends = names, ends
        self._numbers = array("q", (numbers[i * _FIELDS + k] for i in order for k in range(_FIELDS)))
        at = {old: new for new, old in enumerate(order) if old in self._keys or old in self._known}
        self._keys = {at[old]: key for old, key in self._keys.items()}
        self._known = {at[old]: known for old, known in self._known.items()}

    def bytes_to_read(self) -> int:
        """Log bytes the run reads: a known log's from where it was read up to, unless read whole."""
        total = 0
        for i in range(len(self)):
            known = self._known.get(i)
            done = known[0].offset if known and not self._from_start[i] else 0
            total += max(0, self._numbers[i * _FIELDS] - done)
        return total

    def __len__(self) -> int:
        return len(self._folder_of)

    def _name_start(self, i: int) -> int:
        return self._name_ends[i - 1] if i else 0

    def path(self, i: int) -> str:
        name = self._names[self._name_start(i):self._name_ends[i]].decode("utf-8", _NAME_ERRORS)
        return self._folders[self._folder_of[i]] + name

    def __getitem__(self, i: int) -> FileJob:
        size, mtime_ns, inode, ctime_ns = self._numbers[i * _FIELDS:(i + 1) * _FIELDS]
        path = self.path(i)
        row, meta, prints = self._known.get(i, (None, None, b""))
        return FileJob(self._agents[self._agent_of[i]], path, size, mtime_ns, inode, row, meta,
                       ctime_ns=ctime_ns, from_start=bool(self._from_start[i]), key=self._keys.get(i, path),
                       archive_root=self._archive_root, kept_prints=prints)

    def __iter__(self) -> Iterator[FileJob]:
        for i in range(len(self)):
            yield self[i]

    def take_all(self) -> Iterator[FileJob]:
        """Each job once, in order; a known log's indexed row and session are let go as its job
        is made, and the list is empty once the last is taken."""
        for i in range(len(self)):
            job = self[i]
            self._known.pop(i, None)
            yield job
        self._empty()

"""citations.jsonl: the transcript spans a memory cites as its evidence.

One line per citation, beside the tier files in the memory folder::

    {"ref":"ep-1a2b3c4d","session":"claude-code:5f0c...","first":12,"last":15,
     "digest":"9e1f...","cited_at":"2026-04-02T09:15:00+00:00","status":"ok","checked_at":null}

``ref`` names what cites: an episodic entry's id, ``fact:KEY`` or ``rule:ID``. The citations
live in their own file because ``fact.yml`` is the user's own text (edited line by line, never
given machine fields) and a rule's approval is bound to its exact text. ``digest`` is the
SHA-256 of the cited messages' text when cited; checking a citation against the index
(``indexer.provenance.citing``, which has the index) records its ``status``: ``ok``, ``changed``
(the text is not what was cited) or ``gone`` (the log is gone and not archived). Reading needs
no index, so the strength of an entry (``cited_when``) and the agent's context can use the last
status without opening one.

A line that is not a citation is kept as it is; every write holds the folder's lock and is
atomic.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

from indexer.util.fileio import atomic_write_text
from indexer.memory.folder_lock import FolderLock
from indexer.memory.timeutil import iso
from indexer.util.named_record import NamedTuple
from indexer.util.quick_json import dumps, loads

FILE_NAME = "citations.jsonl"
OK, CHANGED, GONE = "ok", "changed", "gone"
# A memory whose source changed counts as this much older in the decay formula (its only
# negative term): 8 weeks is 0.24 of strength, enough to drop an unused middling entry below
# the archive threshold without erasing an important one.
SOURCE_CHANGED_AGE = timedelta(weeks=8)


class Citation(NamedTuple):
    ref: str  # ep-..., fact:KEY or rule:ID
    session: str  # agent:session_id
    first: int  # first cited message (ordinal, 0-based)
    last: int  # last cited message, inclusive
    digest: str  # SHA-256 of the cited messages' text when cited
    cited_at: str
    status: str = OK
    checked_at: str | None = None
    changed_files: tuple[str, ...] = ()  # files its session wrote that changed since, as last checked

    @property
    def source_changed(self) -> bool:
        return self.status != OK

    def span(self) -> str:
        return f"{self.session}:{self.first}-{self.last}" if self.first != self.last else f"{self.session}:{self.first}"

    def to_obj(self) -> dict:
        return {"ref": self.ref, "session": self.session, "first": self.first, "last": self.last,
                "digest": self.digest, "cited_at": self.cited_at, "status": self.status, "checked_at": self.checked_at,
                **({"changed_files": list(self.changed_files)} if self.changed_files else {})}


def _citation(obj: object) -> Citation | None:
    if not isinstance(obj, dict):
        return None
    try:
        files = obj.get("changed_files")
        return Citation(str(obj["ref"]), str(obj["session"]), int(obj["first"]), int(obj["last"]),
                        str(obj["digest"]), str(obj.get("cited_at") or ""), str(obj.get("status") or OK),
                        obj.get("checked_at") if isinstance(obj.get("checked_at"), str) else None,
                        tuple(str(f) for f in files) if isinstance(files, list) else ())
    except (KeyError, TypeError, ValueError):
        return None


class CitationLog:
    """The citations of one memory folder."""

    def __init__(self, folder: os.PathLike | str):
        self.folder = Path(folder)
        self.path = self.folder / FILE_NAME

    def _lines(self) -> list[tuple[str, Citation | None]]:
        try:
            text = self.path.read_text(encoding="utf-8", errors="surrogateescape")
        except FileNotFoundError:
            return []
        out = []
        for raw in text.splitlines():
            if not raw.strip():
                continue
            try:
                out.append((raw, _citation(loads(raw))))
            except ValueError:
                out.append((raw, None))  # not ours to drop
        return out

    def all(self) -> list[Citation]:
        return [c for _, c in self._lines() if c is not None]

    def of(self, ref: str) -> list[Citation]:
        return [c for c in self.all() if c.ref == ref]

    def changed_refs(self) -> set[str]:
        """What cites a source that changed or is gone, as last checked."""
        return {c.ref for c in self.all() if c.source_changed}

    def add(self, citation: Citation) -> Citation:
        with FolderLock(self.folder):
            lines = [raw for raw, _ in self._lines()]
            lines.append(dumps(citation.to_obj()))
            self._write(lines)
        return citation

    def changed_files_of(self) -> dict[str, tuple[str, ...]]:
        """Per memory, the files its cited sessions wrote that changed since, as last checked."""
        found: dict[str, tuple[str, ...]] = {}
        for c in self.all():
            if c.changed_files:
                found[c.ref] = tuple(dict.fromkeys((*found.get(c.ref, ()), *c.changed_files)))
        return found

    def record_checks(self, checked: dict[tuple[str, str, int, int], tuple[str, tuple[str, ...]]],
                      now: datetime) -> int:
        """Store each (ref, session, first, last) -> (status, changed files); returns how many
        citations changed."""
        changes = 0
        with FolderLock(self.folder):
            lines = []
            for raw, c in self._lines():
                found = checked.get((c.ref, c.session, c.first, c.last)) if c else None
                if c is not None and found is not None and found != (c.status, c.changed_files):
                    raw = dumps(c._replace(status=found[0], changed_files=found[1], checked_at=iso(now)).to_obj())
                    changes += 1
                lines.append(raw)
            if changes:
                self._write(lines)
        return changes

    def _write(self, lines: list[str]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, "".join(line + "\n" for line in lines), backup=False)


def cited_when(when: datetime | None, source_changed: bool, now: datetime) -> datetime | None:
    """The time the decay formula reads for an entry: ``SOURCE_CHANGED_AGE`` earlier when what
    it cites changed or is gone (its age is the formula's one way to lower strength)."""
    if not source_changed:
        return when
    return (when if when is not None and when <= now else now) - SOURCE_CHANGED_AGE

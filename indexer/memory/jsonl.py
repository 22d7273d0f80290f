"""A JSON-lines file kept exactly as the user wrote it.

Each physical line is kept with its own line ending. Lines we do not change are written back
byte for byte; a line that is not JSON is kept verbatim in place and reported, never dropped.
Every write checks that the file is still what we loaded, then replaces it atomically with a
``.bak`` of the previous version.
"""

from __future__ import annotations

import re
from pathlib import Path

from indexer.util.fileio import FileStamp, atomic_write_bytes
from indexer.memory.errors import Problem
from indexer.util.named_record import NamedTuple
from indexer.util.quick_json import loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ENCODING = "utf-8"
ERRORS = "surrogateescape"  # undecodable bytes survive a rewrite untouched


class JsonlLine(NamedTuple):
    """One physical line: ``raw`` includes its line ending; ``obj`` is set for JSON objects."""

    raw: str
    obj: dict[str, Any] | None = None
    error: str | None = None

    @property
    def body(self) -> str:
        return self.raw.rstrip("\r\n")

    @property
    def ending(self) -> str:
        return self.raw[len(self.body) :]


_SURROGATE = "[\ud800-\udfff]"  # compiled (re's cache) by the first line written: reading needs none


def dump_obj(obj: dict[str, Any], like: str = "") -> str:
    """The compact one-line form new and rewritten lines use (non-ASCII kept readable).

    A lone surrogate in a value is written as a JSON escape (``\\ud83d``), as the file had
    it, unless it stands for a byte that was not UTF-8 in ``like`` (the line it replaces): that
    byte is written back as it was."""
    import json  # writing only: a session start reads these files without it

    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    if not re.search(_SURROGATE, text):
        return text
    return re.sub(_SURROGATE, lambda m: _surrogate(m.group(), like), text)


def _surrogate(char: str, like: str) -> str:
    if "\udc80" <= char <= "\udcff" and char in like:
        return char  # a raw byte of the original line: surrogateescape writes it back
    return f"\\u{ord(char):04x}"


def parse_line(raw: str) -> JsonlLine:
    body = raw.rstrip("\r\n")
    if not body.strip():
        return JsonlLine(raw)
    try:
        value = loads(body)
    except ValueError as exc:
        return JsonlLine(raw, error=f"not valid JSON ({exc})")
    if not isinstance(value, dict):
        return JsonlLine(raw, error="not a JSON object")
    return JsonlLine(raw, obj=value)


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only (not ``str.splitlines``, which also splits on U+2028 inside JSON)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def with_body(line: JsonlLine, obj: dict[str, Any]) -> JsonlLine:
    """The same line rewritten to hold ``obj`` (keeping its line ending)."""
    return JsonlLine(dump_obj(obj, like=line.raw) + (line.ending or "\n"), obj=obj)


def new_line(obj: dict[str, Any]) -> JsonlLine:
    return JsonlLine(dump_obj(obj) + "\n", obj=obj)


class JsonlFile:
    """The loaded lines of one file plus the stamp that guards the next write."""

    def __init__(self, path: Path, lines: list[JsonlLine], stamp: FileStamp):
        self.path = Path(path)
        self.lines = lines
        self.stamp = stamp

    @classmethod
    def load(cls, path: Path) -> "JsonlFile":
        path = Path(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return cls(path, [], FileStamp.of(path))
        stamp = FileStamp.of_bytes(path, data)
        text = data.decode(ENCODING, ERRORS)
        return cls(path, [parse_line(raw) for raw in split_lines(text)], stamp)

    def problems(self) -> list[Problem]:
        return [
            Problem(self.path, n, line.error, line.body)
            for n, line in enumerate(self.lines, 1)
            if line.error
        ]

    def is_stale(self) -> bool:
        """Whether the file changed on disk since it was loaded or written by us."""
        current = FileStamp.of(self.path)
        return (current.exists, current.sha256) != (self.stamp.exists, self.stamp.sha256)

    def write(self, lines: list[JsonlLine]) -> None:
        """Replace the file with ``lines``; refuses if it changed on disk since loading."""
        lines = list(lines)
        # A last line without a newline gets one before anything is added after it.
        for i, line in enumerate(lines[:-1]):
            if not line.raw.endswith("\n"):
                lines[i] = JsonlLine(line.raw + "\n", line.obj, line.error)
        data = "".join(line.raw for line in lines).encode(ENCODING, ERRORS)
        self.stamp = atomic_write_bytes(self.path, data, expect=self.stamp)
        self.lines = lines

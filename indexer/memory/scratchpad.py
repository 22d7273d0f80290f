"""scratchpad.md: the current task's notes, kept as the user's Markdown.

Items are list lines outside fenced code blocks: checklist lines (``- [ ] x``, ``- [x] y``)
and bullets (``- z``, ``* z``, ``+ z``), each known by its 1-based line number. Promoting an item
marks it in place — ``- [x] text (→ ep-1a2b3c4d)`` for a checklist, ``- text (→ ep-...)`` for a
bullet — or removes its line; nothing else in the file changes.
"""

from __future__ import annotations

import re
from pathlib import Path

from indexer.util.fileio import FileStamp, atomic_write_text, check_unchanged
from indexer.memory.errors import MemoryNotFoundError
from indexer.util.named_record import NamedTuple

_ITEM = re.compile(
    r"^(?P<indent>[ \t]*)(?P<bullet>[-*+])[ \t]+"
    r"(?:\[(?P<check>[ xX])\](?:[ \t]+|$))?(?P<text>.*?)[ \t]*$"
)
_RULE = re.compile(r"^[ \t]{0,3}([-*_])([ \t]*\1){2,}[ \t]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_PROMOTED = re.compile(r"[ \t]*\(→[ \t]*(?P<id>[\w-]+)\)$")


class ScratchpadItem(NamedTuple):
    line: int  # 1-based
    text: str  # without the list marker, the checkbox and a "(→ id)" mark
    kind: str  # "checklist" or "bullet"
    checked: bool
    promoted_to: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "line": self.line,
            "text": self.text,
            "kind": self.kind,
            "checked": self.checked,
            "promoted_to": self.promoted_to,
        }


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def parse_items(text: str) -> list[ScratchpadItem]:
    items = []
    in_fence: str | None = None
    for n, raw in enumerate(_lines(text), 1):
        body = raw.rstrip("\r\n")
        fence = _FENCE.match(body)
        if fence:
            if in_fence is None:
                in_fence = fence.group(1)
            elif fence.group(1) == in_fence:
                in_fence = None
            continue
        if in_fence or _RULE.match(body):
            continue
        m = _ITEM.match(body)
        if not m:
            continue
        item_text = m.group("text")
        promoted = _PROMOTED.search(item_text)
        if promoted:
            item_text = item_text[: promoted.start()]
        if not item_text.strip():
            continue
        check = m.group("check")
        items.append(
            ScratchpadItem(
                line=n,
                text=item_text.strip(),
                kind="checklist" if check is not None else "bullet",
                checked=check in ("x", "X"),
                promoted_to=promoted.group("id") if promoted else None,
            )
        )
    return items


def mark_line(raw: str, entry_id: str) -> str:
    """The item line ticked (checklists) and tagged with the episodic id it became."""
    body = raw.rstrip("\r\n")
    ending = raw[len(body) :]
    m = _ITEM.match(body)
    if m is None:
        raise ValueError("not a list item")
    if m.group("check") is not None:
        start, end = m.span("check")
        body = body[:start] + "x" + body[end:]
    return f"{body.rstrip()} (→ {entry_id}){ending}"


class Scratchpad:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.reload()

    def reload(self) -> None:
        try:
            data = self.path.read_bytes()
            self.stamp = FileStamp.of_bytes(self.path, data)
            # Bytes that are not UTF-8 are kept (as surrogate escapes) and written back as they were.
            self.text = data.decode("utf-8", "surrogateescape")
        except FileNotFoundError:
            self.stamp = FileStamp.of(self.path)
            self.text = ""

    def items(self) -> list[ScratchpadItem]:
        return parse_items(self.text)

    def item_at(self, line: int) -> ScratchpadItem:
        for item in self.items():
            if item.line == line:
                return item
        raise MemoryNotFoundError(f"no checklist item or bullet on line {line} of {self.path.name}")

    def marked_text(self, line: int, entry_id: str) -> str:
        lines = _lines(self.text)
        lines[line - 1] = mark_line(lines[line - 1], entry_id)
        return "".join(lines)

    def removed_text(self, line: int) -> str:
        lines = _lines(self.text)
        del lines[line - 1]
        return "".join(lines)

    def check_writable(self) -> None:
        check_unchanged(self.path, self.stamp)

    def save_text(self, text: str) -> None:
        """Atomic write with a ``.bak``; refuses if the file changed since it was loaded, even
        when an editor saves it while we write (see ``indexer.util.fileio``)."""
        self.stamp = atomic_write_text(self.path, text, expect=self.stamp)
        self.text = text

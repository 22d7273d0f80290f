"""A rewound Claude Code conversation: the person went back (Esc Esc) and typed a new prompt
from an earlier point, so two prompts hang from one parent (``parentUuid``). The attempt the
conversation left is kept, searchable, and marked *abandoned branch*; the branch the last
record sits on is the live one.

Conservative by design: only two sibling *typed prompts* make a branch point (tool results,
progress and system records chain in ways that say nothing about a rewind), and the marks are
made when the whole file is read (a first index, a rewritten file), not on an append: an
append cannot see the siblings an earlier run read.
"""

from __future__ import annotations

from indexer.sources.base import ParsedMessage
from indexer.sources.fields import as_dict, as_list, as_str

ABANDONED_MARK = "abandoned branch"


class RewindTree:
    """The records of one whole read: parent links, typed prompts, and each record's messages."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.prompts_of: dict[str, list[str]] = {}  # parent uuid -> typed prompts hanging from it
        self.last = ""

    def link(self, rec: dict) -> None:
        uuid = as_str(rec.get("uuid"))
        if not uuid or rec.get("isSidechain") is True:
            return
        parent = as_str(rec.get("parentUuid")) or as_str(rec.get("logicalParentUuid"))
        self.parent[uuid] = parent
        self.last = uuid
        if parent and _is_typed_prompt(rec):
            self.prompts_of.setdefault(parent, []).append(uuid)

    def mark(self, by_uuid: dict[str, list[ParsedMessage]]) -> None:
        """Mark the messages of every record off the live branch below a branch point."""
        points = {p for p, prompts in self.prompts_of.items() if len(prompts) > 1}
        if not points or not self.last:
            return
        live = self._path(self.last)
        for uuid, messages in by_uuid.items():
            if uuid in live or uuid not in self.parent:
                continue
            if self._below_a_point(uuid, points, live):
                for message in messages:
                    if message.mark is None:
                        message.mark = ABANDONED_MARK

    def _path(self, leaf: str) -> set[str]:
        seen: set[str] = set()
        node = leaf
        while node and node not in seen:
            seen.add(node)
            node = self.parent.get(node, "")
        return seen

    def _below_a_point(self, uuid: str, points: set[str], live: set[str]) -> bool:
        """``uuid`` descends from a branch point through a record not on the live branch."""
        seen: set[str] = set()
        node = uuid
        while node and node not in seen:
            seen.add(node)
            parent = self.parent.get(node, "")
            if parent in points:
                return node not in live
            node = parent
        return False


def _is_typed_prompt(rec: dict) -> bool:
    if rec.get("type") != "user" or rec.get("isMeta") is True:
        return False
    content = as_dict(rec.get("message")).get("content")
    if isinstance(content, str):
        return bool(content.strip())
    blocks = [as_dict(b) for b in as_list(content)]
    return bool(blocks) and not any(b.get("type") == "tool_result" for b in blocks)

"""Claude Code's auto-memory notes (``<projects>/*/memory/*.md``), read as candidate rules.

Claude Code writes these notes itself, from whatever it read in a session, and loads them into
later sessions: exactly the kind of text a person should approve before it steers anything.
``MEMORY.md`` is only the index of the other notes, so it is not a rule.
"""

from __future__ import annotations

import os
from pathlib import Path

from indexer.util.digest import sha256_hex
from typing import NamedTuple
from indexer.rules.model import MAX_RULE_CHARS, PENDING, Rule, new_rule_id
from indexer.rules.similarity import find_near_duplicate
from indexer.sources import CLAUDE_CODE

INDEX_NOTE = "MEMORY.md"
MAX_NOTE_BYTES = 1_000_000


class ClaudeNote(NamedTuple):
    path: Path  # absolute
    text: str  # the note's body, front matter removed
    title: str | None  # front matter ``name`` (or ``description``)
    file_sha256: str  # of the whole file, front matter included


class SkippedNote(NamedTuple):
    path: Path
    reason: str


def claude_projects_root(claude_dir: Path | None = None) -> Path:
    """``claude_dir`` (a ``.claude`` folder or its ``projects`` folder), else
    ``$CLAUDE_CONFIG_DIR/projects``, else ``~/.claude/projects``."""
    if claude_dir is not None:
        claude_dir = Path(claude_dir).expanduser()
        if (claude_dir / "projects").is_dir():
            return claude_dir / "projects"
        return claude_dir
    if os.environ.get("CLAUDE_CONFIG_DIR"):
        return Path(os.environ["CLAUDE_CONFIG_DIR"]).expanduser() / "projects"
    return Path.home() / ".claude" / "projects"


def find_note_files(projects_root: Path) -> list[Path]:
    root = Path(os.path.abspath(Path(projects_root).expanduser()))
    found = [
        path
        for path in root.glob("*/memory/*.md")
        if path.name.upper() != INDEX_NOTE.upper() and path.is_file()
    ]
    return sorted(found)


def read_note(path: Path) -> ClaudeNote | SkippedNote:
    try:
        if path.stat().st_size > MAX_NOTE_BYTES:
            return SkippedNote(path, "larger than 1 MB")
        data = path.read_bytes()
    except OSError as exc:
        return SkippedNote(path, f"unreadable: {exc.strerror or exc}")
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError:
        return SkippedNote(path, "not UTF-8 text")
    front, body = split_front_matter(raw.removeprefix("\ufeff"))
    body = body.strip()
    if not body:
        return SkippedNote(path, "empty note")
    title = front.get("name") or front.get("description") or None
    return ClaudeNote(path, body, title, sha256_hex(data))


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """Top-level ``key: value`` pairs of a ``---`` YAML front matter block, and the body.

    Deliberately small: only plain and block-scalar string values are read (enough for
    ``name`` and ``description``); anything else is ignored, never an error.
    """
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return {}, text
    end = _closing_line(lines)
    if end is None:
        return {}, text
    return _front_matter_fields(lines, end), "\n".join(lines[end + 1 :])


def _closing_line(lines: list[str]) -> int | None:
    """Where the block opened on line 0 ends (``---`` or ``...``); None when it never does, so
    the whole text is body."""
    for end in range(1, len(lines)):
        if lines[end].rstrip() in ("---", "..."):
            return end
    return None


def _front_matter_fields(lines: list[str], end: int) -> dict[str, str]:
    """The ``key: value`` pairs between line 0 and ``end``: indented, comment and key-less lines
    are skipped, as are empty values."""
    fields: dict[str, str] = {}
    i = 1
    while i < end:
        line = lines[i]
        i += 1
        if not line or line[0] in " \t#" or ":" not in line:
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        if value[:1] in (">", "|"):
            value, i = _block_scalar(lines, i, end, value)
        else:
            value = _unquoted(value)
        if value:
            fields[key.strip()] = value
    return fields


def _block_scalar(lines: list[str], start: int, end: int, indicator: str) -> tuple[str, int]:
    """A ``>`` (folded) or ``|`` (literal) value: its indented or blank lines from ``start``, not
    past ``end``, joined; and the index of the line after them, where reading goes on."""
    block = []
    i = start
    while i < end and (not lines[i].strip() or lines[i][0] in " \t"):
        block.append(lines[i].strip())
        i += 1
    joiner = " " if indicator.startswith(">") else "\n"
    return joiner.join(part for part in block if part).strip(), i


def _unquoted(value: str) -> str:
    """A plain value without the matching quotes around it, when it has them."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


class ImportReport(NamedTuple):
    proposed: tuple[Rule, ...]
    duplicates: tuple[tuple[Path, Rule], ...]  # note path, the existing rule it resembles
    already_imported: tuple[Path, ...]
    skipped: tuple[SkippedNote, ...]


def plan_import(projects_root: Path, existing: list[Rule], now: float) -> ImportReport:
    """Which notes under ``projects_root`` become new pending rules, given the rules the store
    holds: each note once per (file path, file content), near-duplicates and huge notes not."""
    proposed: list[Rule] = []
    duplicates: list[tuple[Path, Rule]] = []
    already: list[Path] = []
    skipped: list[SkippedNote] = []
    seen = {(r.source_path, r.source_sha256) for r in existing}
    taken = {r.id for r in existing}
    for path in find_note_files(projects_root):
        note = read_note(path)
        if isinstance(note, SkippedNote):
            skipped.append(note)
            continue
        if (str(note.path), note.file_sha256) in seen:
            already.append(note.path)
            continue
        if len(note.text) > MAX_RULE_CHARS:
            skipped.append(SkippedNote(note.path, f"longer than {MAX_RULE_CHARS:,} characters"))
            continue
        match = find_near_duplicate(note.text, [(r, r.text) for r in (*existing, *proposed)])
        if match is not None:
            duplicates.append((note.path, match))
            continue
        rule = Rule(
            id=new_rule_id(note.text, now, str(note.path), taken=taken),
            text=note.text,
            status=PENDING,
            proposed_at=float(now),
            agent=CLAUDE_CODE,
            source_path=str(note.path),
            title=note.title,
            source_sha256=note.file_sha256,
        )
        taken.add(rule.id)
        proposed.append(rule)
        seen.add((str(note.path), note.file_sha256))
    return ImportReport(tuple(proposed), tuple(duplicates), tuple(already), tuple(skipped))

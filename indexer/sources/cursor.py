"""Cursor's agent CLI: ``~/.cursor/projects/<folder, encoded>/agent-transcripts/<id>.jsonl``,
appended, with a subagent's transcript under ``<id>/subagents/<sub id>.jsonl``.

One message a line: ``{role: user | assistant, message: {content: [...]}}``, the content
Anthropic-style blocks (``text``, ``thinking``, ``tool_use``, ``tool_result``); a user's words
arrive wrapped in ``<user_query>`` tags. The lines carry no times and no folder: the folder is
the project folder's name, ``/`` written as ``-``, which cannot be told apart from a ``-`` in a
name: it is taken only when one reading of it is a folder on this machine. Written from the transcripts as
kenn-io/agentsview (MIT) reads them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from indexer.sources.base import ParseOutput, SessionMeta
from indexer.sources.emit import Emitter, parse_records
from indexer.sources.fields import as_dict, as_list, as_str

AGENT = "cursor"
_USER_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)


def default_roots() -> list[Path]:
    return [Path.home() / ".cursor" / "projects"]


def is_log_file(name: str) -> bool:
    return name.endswith(".jsonl")


def init_meta(path: Path, meta: SessionMeta) -> None:
    meta.session_id = path.stem
    transcripts = path.parent
    if path.parent.name == "subagents":
        meta.parent_session_id = path.parent.parent.name
        transcripts = path.parent.parent.parent
    if transcripts.name == "agent-transcripts":
        meta.project_path = folder_of(transcripts.parent.name)


def folder_of(encoded: str, base: str = "/") -> str | None:
    """The folder ``encoded`` names (``home-dev-my-app`` -> ``/home/dev/my-app``) when exactly
    that folder exists here; None when no reading of it does. Tries the longest names first."""
    parts = [p for p in encoded.split("-")]
    if not encoded or len(parts) > 64:
        return None
    return _walk(base, parts, 0)


def _walk(folder: str, parts: list[str], depth: int) -> str | None:
    if not parts:
        return folder
    if depth > 32:
        return None
    for take in range(len(parts), 0, -1):
        candidate = os.path.join(folder, "-".join(parts[:take]))
        if os.path.isdir(candidate):
            found = _walk(candidate, parts[take:], depth + 1)
            if found:
                return found
    return None


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    return parse_records(AGENT, path, data, first_line_no, meta, init_meta, _record)


def _record(emit: Emitter, record: dict, line_no: int) -> None:
    role = as_str(record.get("role"))
    if role not in ("user", "assistant"):
        return
    content = as_dict(record.get("message")).get("content")
    if role == "user":
        content = [_unwrapped(block) for block in (as_list(content) if not isinstance(content, str) else [content])]
    emit.blocks(role, content, f"line{line_no}")


def _unwrapped(block: object) -> object:
    """A user's text without the ``<user_query>`` wrapper Cursor puts around it."""
    if isinstance(block, str):
        found = _USER_QUERY.search(block)
        return found.group(1) if found else block
    if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
        found = _USER_QUERY.search(block["text"])
        return {**block, "text": found.group(1)} if found else block
    return block

"""Amp: ``~/.local/share/amp/threads/T-<id>.json``, one JSON document a thread, rewritten whole.

``{v, id, created (ms), title, messages[], env.initial.trees[]}``; a message has ``role``,
``messageId``, ``content[]`` of Anthropic-style blocks (``text``, ``thinking``, ``tool_use``,
``tool_result`` with ``toolUseID`` and ``run {status, result, error}``), ``meta.sentAt`` and
``usage``. The project is the first tree's ``uri`` (``file:///...``). Written from the thread
files as kenn-io/agentsview (MIT) reads them.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlparse

from indexer.sources.base import TITLE_NAMED, ParseOutput, SessionMeta, load_whole_json, parse_iso
from indexer.sources.emit import Emitter
from indexer.sources.fields import as_dict, as_list, as_str

AGENT = "amp"


def default_roots() -> list[Path]:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return [Path(base).expanduser() / "amp" / "threads"]


def is_log_file(name: str) -> bool:
    return name.startswith("T-") and name.endswith(".json")


def is_whole_document(path: Path) -> bool:
    return True


def init_meta(path: Path, meta: SessionMeta) -> None:
    meta.session_id = path.stem


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    out = ParseOutput()
    init_meta(path, meta)
    thread = load_whole_json(data)
    if not isinstance(thread, dict):
        if data.strip():
            out.bad_lines, out.first_bad_line = 1, 1
        return out
    meta.offer_title(as_str(thread.get("title")), TITLE_NAMED, latest_wins=True)
    meta.project_path = _project(thread) or meta.project_path
    created = parse_iso(thread.get("created"))
    emit = Emitter(AGENT, meta, out)
    for position, message in enumerate(as_list(thread.get("messages"))):
        message = as_dict(message)
        role = as_str(message.get("role"))
        if role not in ("user", "assistant"):
            continue
        where = as_str(message.get("messageId")) or f"#{position}"
        usage = as_dict(message.get("usage"))
        model = as_str(usage.get("model"))
        if model:
            meta.model = model
        ts = parse_iso(as_dict(message.get("meta")).get("sentAt")) or parse_iso(usage.get("timestamp")) or created
        emit.blocks(role, message.get("content"), where, ts)
    return out


def _project(thread: dict) -> str:
    trees = as_list(as_dict(as_dict(thread.get("env")).get("initial")).get("trees"))
    uri = as_str(as_dict(trees[0]).get("uri")) if trees else ""
    if uri.startswith("file://"):
        return unquote(urlparse(uri).path)
    return ""

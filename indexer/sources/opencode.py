"""opencode: ``~/.local/share/opencode/storage/``, one session as a tree of JSON files.

- ``session/<project id>/ses_*.json``: the session (``id``, ``parentID`` for a subagent's
  session, ``title``, ``directory``, ``time.created``/``updated`` in ms); the log file Threadback
  tracks;
- ``message/<session id>/msg_*.json``: its messages (``id``, ``role``, ``time.created``,
  ``modelID``, ``path.cwd``);
- ``part/<message id>/prt_*.json``: each message's parts (``type`` text / reasoning / tool /
  step-start / step-finish / file / patch; a tool part has ``tool``, ``callID`` and
  ``state {status, input, output, error}``).

The session file is rewritten as the session goes on, so it is read whole, with its messages
and parts. Newer versions keep all of this in ``opencode.db`` (SQLite) instead: each of its
sessions is mirrored as one file holding its messages and parts (``indexer.sources.opencode_db``),
read here like a session file. Written from opencode's ``packages/opencode/src/session/message-v2.ts``
and ``storage/storage.ts``, as kenn-io/agentsview (MIT) reads them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from indexer.sources.base import TITLE_AI, ParseOutput, SessionMeta, load_whole_json, parse_iso
from indexer.sources.emit import Emitter
from indexer.sources.fields import as_dict, as_str, scalar_text
from indexer.sources.opencode_db import MESSAGES_KEY
from indexer.sources.opencode_db import with_database_mirrors as with_store_mirrors  # noqa: F401 - the interface's hook

AGENT = "opencode"
# Files of the SQLite store beside the logs, read through their mirror (not log files themselves)
STORE_FILES = ("opencode.db", "opencode.db-wal", "opencode.db-shm")
MAX_FILES = 50_000  # messages or parts read for one session, at most
_DEFAULT_TITLE = ("New session - ", "Child session - ")


def default_roots() -> list[Path]:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return [Path(base).expanduser() / "opencode" / "storage" / "session"]


def is_log_file(name: str) -> bool:
    return name.startswith("ses_") and name.endswith(".json")


def is_whole_document(path: Path) -> bool:
    return True


def init_meta(path: Path, meta: SessionMeta) -> None:
    meta.session_id = path.stem


def storage_of(path: Path) -> Path:
    """``storage/`` from ``storage/session/<project>/ses_x.json``."""
    return path.parent.parent.parent


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    out = ParseOutput()
    init_meta(path, meta)
    session = load_whole_json(data)
    if not isinstance(session, dict):
        if data.strip():
            out.bad_lines, out.first_bad_line = 1, 1
        return out
    _session(session, meta)
    emit = Emitter(AGENT, meta, out)
    embedded = session.get(MESSAGES_KEY)
    if isinstance(embedded, list):  # a session mirrored from opencode.db (indexer.sources.opencode_db)
        for message in embedded:
            if isinstance(message, dict):
                parts = message.get("parts")
                _message(emit, message, [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else [])
        return out
    storage = storage_of(path)
    for message in _json_files(storage / "message" / (meta.session_id or ""), out):
        _message(emit, message, _json_files(storage / "part" / as_str(message.get("id")), out))
    return out


def _session(session: dict, meta: SessionMeta) -> None:
    session_id = as_str(session.get("id"))
    if session_id:
        meta.session_id = session_id
    parent = as_str(session.get("parentID"))
    if parent:
        meta.parent_session_id = parent
    directory = as_str(session.get("directory"))
    if directory:
        meta.project_path = directory
    title = as_str(session.get("title"))
    if title and not title.startswith(_DEFAULT_TITLE):
        meta.offer_title(title, TITLE_AI, latest_wins=True)


def _json_files(folder: Path, out: ParseOutput) -> list[dict]:
    """The JSON objects in ``folder``, in id order (opencode's ids sort by creation time)."""
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if entry.name.endswith(".json"))
    except OSError:
        return []
    found = []
    for name in names[:MAX_FILES]:
        try:
            value = json.loads((folder / name).read_bytes())
        except (OSError, ValueError, RecursionError):
            out.bad_lines += 1
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def _message(emit: Emitter, message: dict, parts: list[dict]) -> None:
    role = "assistant" if as_str(message.get("role")) == "assistant" else "user"
    where = as_str(message.get("id"))
    ts = parse_iso(as_dict(message.get("time")).get("created"))
    model = as_str(message.get("modelID"))
    if model:
        emit.meta.model = model
    error = as_dict(message.get("error"))
    for i, part in enumerate(parts):
        _part(emit, role, part, where, f"{i}:{as_str(part.get('id'))}", ts)
    if error:
        detail = scalar_text(as_dict(error.get("data")).get("message")) or as_str(error.get("name"))
        emit.error(f"Error: {detail or 'no details'}", where, "error", ts)


def _part(emit: Emitter, role: str, part: dict, where: str, index: str, ts: float | None) -> None:
    ptype = as_str(part.get("type"))
    ts = parse_iso(as_dict(part.get("time")).get("start")) or ts
    if ptype == "text" and part.get("synthetic") is not True:
        emit.said(role, scalar_text(part.get("text")), where, index, ts)
    elif ptype == "reasoning":
        emit.thought(scalar_text(part.get("text")), where, index, ts)
    elif ptype == "tool":
        state = as_dict(part.get("state"))
        name = as_str(part.get("tool"))
        emit.tool_call(name, state.get("input"), where, index + ":call", ts)
        status = as_str(state.get("status"))
        if status in ("completed", "error"):
            output = state.get("output") if status == "completed" else state.get("error")
            emit.tool_result(name, output, where, index + ":result", ts, failed=status == "error")

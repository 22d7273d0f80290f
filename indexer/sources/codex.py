"""Codex CLI: the TypeScript-era ``.json``, early bare-header JSONL and the envelope format.

This module finds the files, names the thread and reads its ``session_meta``; the items and
events of a conversation are read in ``codex_items``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from indexer.sources import codex_items as items
from indexer.sources.base import (
    TITLE_AI,
    ParseOutput,
    SessionMeta,
    iter_json_lines,
    load_whole_json,
    parse_iso,
)
from indexer.sources.codex_items import CodexReader
from indexer.sources.fields import as_dict, as_list, as_str

_FILE_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", re.I)
_ENVELOPE_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}


def default_roots() -> list[Path]:
    base = Path(os.environ.get("CODEX_HOME") or str(Path.home() / ".codex")).expanduser()
    return [base / "sessions", base / "archived_sessions"]


def is_log_file(name: str) -> bool:
    return name.startswith("rollout-") and name.endswith((".jsonl", ".json"))


def is_whole_document(path: Path) -> bool:
    """The TS-era files are one pretty-printed object, rewritten whole on each turn."""
    return path.suffix == ".json"


def init_meta(path: Path, meta: SessionMeta) -> None:
    m = _FILE_UUID.search(path.name)
    meta.session_id = m.group(1) if m else path.stem


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    out = ParseOutput()
    if meta.session_id is None:
        init_meta(path, meta)
    reader = CodexReader(out, meta, state)
    if is_whole_document(path) or (state.get("_whole") and _is_ts_era(data)):
        _parse_ts_era(data, reader)
        return out
    # Otherwise one record per line, or records pretty-printed over several lines.
    for line_no, rec in iter_json_lines(data, out, first_line_no):
        if not isinstance(rec, dict):
            continue
        rtype = as_str(rec.get("type"))
        if ("payload" in rec and rtype in _ENVELOPE_TYPES) or rtype == "world_state":
            _envelope(reader, rec, line_no)
        elif rec.get("record_type"):
            continue  # early JSONL state markers
        elif line_no == 1 and "id" in rec and "type" not in rec:
            _header(reader, rec)
        elif rtype in items.RESPONSE_ITEM_TYPES:
            items.response_item(reader, rec, parse_iso(state.get("header_ts")), line_no)
    return out


def _header(reader: CodexReader, rec: dict) -> None:
    thread = as_str(rec.get("id"))
    if thread:
        reader.state["thread_id"] = reader.meta.session_id = thread
    reader.state["header_ts"] = as_str(rec.get("timestamp")) or None
    branch = as_str(as_dict(rec.get("git")).get("branch"))
    if branch:
        reader.meta.git_branch = branch


def _is_ts_era(data: bytes) -> bool:
    """A TypeScript-era document (``{"session": ..., "items": [...]}``), not envelope records."""
    doc = load_whole_json(data)
    return isinstance(doc, dict) and ("items" in doc or "session" in doc)


def _parse_ts_era(data: bytes, reader: CodexReader) -> None:
    """One JSON document; ingest also sends here a pretty-printed document with a .jsonl name."""
    doc = load_whole_json(data)
    if not isinstance(doc, dict):
        reader.out.bad_lines += 1
        reader.out.first_bad_line = 1
        return
    session = as_dict(doc.get("session"))
    thread = as_str(session.get("id"))
    if thread:
        reader.state["thread_id"] = reader.meta.session_id = thread
    reader.state["header_ts"] = as_str(session.get("timestamp")) or None
    ts = parse_iso(reader.state["header_ts"])
    for i, item in enumerate(as_list(doc.get("items"))):
        if isinstance(item, dict):
            items.response_item(reader, item, ts, i + 1)


def _envelope(reader: CodexReader, rec: dict, line_no: int) -> None:
    payload = rec.get("payload")
    if not isinstance(payload, dict):
        return
    rtype = rec.get("type")
    if rtype == "session_meta":
        _session_meta(reader, payload)
    elif rtype == "turn_context":
        model, cwd = as_str(payload.get("model")), as_str(payload.get("cwd"))
        if model:
            reader.meta.model = model
        if cwd and not reader.meta.project_path:
            reader.meta.project_path = cwd
    elif rtype == "response_item":
        items.response_item(reader, payload, parse_iso(rec.get("timestamp")), line_no, envelope_ts=rec.get("timestamp"))
    elif rtype == "event_msg":
        items.event(reader, payload, parse_iso(rec.get("timestamp")), line_no, envelope_ts=rec.get("timestamp"))
    elif rtype == "compacted":
        items.compacted(reader, payload, parse_iso(rec.get("timestamp")), rec.get("timestamp"))


def _session_meta(reader: CodexReader, payload: dict) -> None:
    """The first ``session_meta`` names the thread; later ones belong to forks and resumes."""
    state, meta = reader.state, reader.meta
    thread = as_str(payload.get("id"))
    if "thread_id" in state or not thread:
        return
    state["thread_id"] = meta.session_id = thread
    cwd = as_str(payload.get("cwd"))
    if cwd:
        meta.project_path = cwd
    branch = as_str(as_dict(payload.get("git")).get("branch"))
    if branch:
        meta.git_branch = branch
    forked_from = as_str(payload.get("forked_from_id"))
    if forked_from and forked_from != thread:
        meta.branched_from = forked_from  # the user's own fork: a session of its own
    # A child thread: source.subagent is {"thread_spawn": {parent_thread_id, ...}}, or another
    # kind ({"other": ...}, "review") with the parent in a top-level parent_thread_id.
    subagent = as_dict(payload.get("source")).get("subagent")
    if subagent is None:
        return
    spawn = as_dict(as_dict(subagent).get("thread_spawn"))
    parent = as_str(spawn.get("parent_thread_id")) or as_str(payload.get("parent_thread_id"))
    if not parent or parent == thread:
        return
    meta.parent_session_id = parent
    nickname = as_str(spawn.get("agent_nickname")) or as_str(payload.get("agent_nickname"))
    role = as_str(spawn.get("agent_role")) or as_str(payload.get("agent_role")) or as_str(as_dict(subagent).get("other"))
    meta.offer_title(" ".join(x for x in (role, nickname) if x), TITLE_AI)

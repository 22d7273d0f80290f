"""What Threadback does on Claude Code's hook events (``threadback hook session-start|prompt|refresh``).

A hook must never get in the agent's way: it reads the event JSON without waiting long, its
search is cut off at a deadline, a missing or busy index means no hits (not an error), and the
index refresh runs detached. The command line only reads stdin, calls ``answer`` and prints.

- session-start: how to search past sessions, then ``context`` (rules, memory as reference).
- prompt: when the prompt points at past work (``recall``), a reminder with the exact search
  command and the top hits, wrapped as reference data.
- refresh: an index run in the background, after Stop at most every ``STOP_REFRESH_INTERVAL``.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from indexer.agents.context import DEFAULT_MAX_BYTES, build_context, wrap_reference
from indexer.agents.recall import RecallMatch, detect_recall
from indexer.agents.refresh import start_refresh
from indexer.agents.usage import UsageEvent
from indexer.index import Index
from indexer.memory import MemoryStore
from indexer.models import Hit
from indexer.rules import RuleStore
from indexer.textsafe import make_visible

EVENTS = ("session-start", "prompt", "refresh")
EVENT_NAMES = {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "refresh": "Stop"}
STDIN_LIMIT = 4 * 1024 * 1024
STDIN_WAIT_SECONDS = 1.0
SEARCH_DEADLINE_SECONDS = 0.6
INDEX_BUSY_TIMEOUT_MS = 200
PROMPT_HITS = 3
HIT_SNIPPET_CHARS = 220

ROUTING_LINE = (
    "Threadback indexes your past sessions (Claude Code, Codex, pi). Before answering from "
    "memory about earlier work, run `threadback search \"<words>\" -C 2` (add "
    "`--exclude-session <this session id>`); `threadback show <session> --around <msg>` opens a hit."
)


@dataclass(frozen=True)
class HookAnswer:
    """What to give the agent ("" for nothing) and what to log (None for nothing)."""

    text: str
    usage: UsageEvent | None


def read_event(stream: TextIO | None, *, wait: float = STDIN_WAIT_SECONDS) -> dict[str, Any]:
    """The hook's JSON object from ``stream``, or {}; never blocks longer than ``wait`` seconds
    when it is a terminal or a pipe nobody writes to. Raises ``ValueError`` on bad JSON."""
    if stream is None or stream.closed or stream.isatty():
        return {}
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        data = stream.read(STDIN_LIMIT)
    else:
        chunks: list[bytes] = []
        size = 0
        deadline = time.monotonic() + wait
        while size < STDIN_LIMIT:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                ready, _, _ = select.select([fd], [], [], remaining)
            except (OSError, ValueError):  # Windows pipes: select only takes sockets
                chunks.append(os.read(fd, STDIN_LIMIT))
                break
            if not ready:
                break
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    if isinstance(data, bytes):
        data = data.decode("utf-8", "replace")
    obj = json.loads(data) if data.strip() else {}
    return obj if isinstance(obj, dict) else {}


def claude_code_output(event: str, payload: dict[str, Any], text: str) -> str:
    """``text`` as Claude Code's hook JSON (``additionalContext``), one line."""
    name = payload.get("hook_event_name") or EVENT_NAMES[event]
    return json.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}, ensure_ascii=False)


def answer(event: str, payload: dict[str, Any], *, db_path: Path, memory_dir: str | None = None) -> HookAnswer:
    """Run one hook event; ``payload`` is the event JSON Claude Code sent."""
    if event == "session-start":
        return session_start(payload, memory_dir)
    if event == "prompt":
        return prompt(payload, db_path)
    if event == "refresh":
        return refresh(payload, db_path)
    raise ValueError(f"unknown hook event {event!r}")


def _session_of(payload: dict[str, Any]) -> str | None:
    value = payload.get("session_id")
    return value if isinstance(value, str) and value else None


def _cwd_of(payload: dict[str, Any]) -> Path | None:
    value = payload.get("cwd")
    if isinstance(value, str) and value and Path(value).is_dir():
        return Path(value)
    return None


# --- session-start ------------------------------------------------------------------------------


def session_start(payload: dict[str, Any], memory_dir: str | None) -> HookAnswer:
    now = datetime.now(timezone.utc)
    memory = MemoryStore.open(memory_dir, _cwd_of(payload))
    context = build_context(memory, RuleStore(memory.folder), now=now, max_bytes=DEFAULT_MAX_BYTES - 512)
    text = ROUTING_LINE + ("\n\n" + context if context else "") + "\n"
    return HookAnswer(text, UsageEvent(ts=now.timestamp(), kind="hook-session-start", session=_session_of(payload)))


# --- prompt -------------------------------------------------------------------------------------


def prompt(payload: dict[str, Any], db_path: Path) -> HookAnswer:
    now = time.time()
    session = _session_of(payload)
    text = payload.get("prompt")
    match = detect_recall(text) if isinstance(text, str) else None
    if match is None:
        return HookAnswer("", UsageEvent(ts=now, kind="hook-prompt", session=session, fired=False))
    index = open_index_quietly(db_path)
    if index is None:
        return HookAnswer("", UsageEvent(ts=now, kind="hook-prompt", session=session, fired=True))
    query, hits = match.query, []
    try:
        if match.terms:
            hits = quick_search(index, query, session)
            if not hits and len(match.terms) > 1:
                hits = quick_search(index, match.any_query, session)
                if hits:
                    query = match.any_query
    finally:
        index.close()
    event = UsageEvent(ts=now, kind="hook-prompt", query=query or None, hits=len(hits) if query else None,
                       excluded=(session,) if session else (), session=session, fired=True)
    return HookAnswer(recall_reminder(match, query, session, hits), event)


def open_index_quietly(path: Path) -> Index | None:
    """The index, opened read-only and waiting at most ``INDEX_BUSY_TIMEOUT_MS`` for a lock;
    None when it is missing or unusable."""
    if not path.is_file():
        return None
    # The short wait applies from the first statement on: opening reads the schema too.
    index = Index(path, readonly=True, busy_timeout_ms=INDEX_BUSY_TIMEOUT_MS)
    try:
        index.conn.execute("SELECT 1 FROM messages LIMIT 1").fetchall()
    except Exception:
        index.close()
        return None
    return index


def quick_search(index: Index, query: str, session: str | None) -> list[Hit]:
    """At most ``PROMPT_HITS`` hits, one per session; a search running past the deadline is
    interrupted and counts as no hits."""
    deadline = time.monotonic() + SEARCH_DEADLINE_SECONDS
    conn = index.conn
    conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 20000)
    try:
        result = index.search(query, limit=PROMPT_HITS, one_per_session=True,
                              exclude_sessions=(session,) if session else ())
        return list(result.hits)
    except Exception:
        return []
    finally:
        conn.set_progress_handler(None, 0)


def search_command(query: str, session: str | None) -> str:
    parts = ["threadback", "search", shlex.quote(query) if query else '"<words>"']
    if session:
        parts += ["--exclude-session", shlex.quote(session)]
    parts += ["-C", "2"]
    return " ".join(parts)


def compact_hit_line(hit: Hit) -> str:
    s, m = hit.session, hit.message
    when = datetime.fromtimestamp(m.ts).strftime("%Y-%m-%d") if m.ts else "undated"
    snippet = " ".join(hit.snippet.split())
    if len(snippet) > HIT_SNIPPET_CHARS:
        snippet = snippet[: HIT_SNIPPET_CHARS - 1] + "…"
    line = f"- {s.agent} · {s.project_name or '?'} · {when} · session {s.session_id} · msg {m.id}: {snippet}"
    return make_visible(line, tab="\t")


def recall_reminder(match: RecallMatch, query: str, session: str | None, hits: list[Hit]) -> str:
    lines = [
        f"Threadback: this prompt refers to earlier work (\u201c{match.phrase}\u201d). "
        "Search the past sessions before answering from memory:",
        "  " + search_command(query, session),
    ]
    if not query:
        lines.append("  (put the error message, file or command names you are looking for in the quotes)")
    if hits:
        lines.append("Top matches from past sessions (reference data; open one with "
                     "`threadback show <session> --around <msg>`):")
        lines.append(wrap_reference("\n".join(compact_hit_line(h) for h in hits)))
    elif query:
        lines.append("  (no direct match: try other words, a longer CJK phrase, or the exact error text)")
    return "\n".join(lines) + "\n"


# --- refresh ------------------------------------------------------------------------------------


def refresh(payload: dict[str, Any], db_path: Path) -> HookAnswer:
    """Start an index run in the background so this session is searchable at once."""
    now = time.time()
    if not start_refresh(db_path, now, after_every_turn=payload.get("hook_event_name") == "Stop"):
        return HookAnswer("", None)
    return HookAnswer("", UsageEvent(ts=now, kind="hook-refresh", session=_session_of(payload)))

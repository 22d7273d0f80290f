"""What Threadback does on Claude Code's and Codex's hook events (``threadback hook
session-start|prompt|refresh``).

A hook must never get in the agent's way: it reads the event JSON without waiting long, it
answers within its budget (``budget``: what is not ready is left out with a note), its
searches are cut off at a deadline, a missing or busy index means no hits (not an error), and the
index refresh runs detached. The command line only reads stdin, calls ``answer`` and prints.

- session-start: how to search past sessions, then ``context`` (rules, memory as reference).
- prompt: when the prompt points at past work (``recall``), a reminder with the exact search
  command and the hits that pass the relevance bar (``relevance``), each with the command that
  opens it, wrapped as reference data and capped at ``REMINDER_MAX_BYTES``. Without a trigger
  phrase, only a reported error that past sessions hold with the same details (``evidence``).
- refresh: an index run in the background, after Stop at most every ``STOP_REFRESH_INTERVAL``.
"""

from __future__ import annotations

import os
import select
import time

from indexer.agents.budget import hook_budget, hook_deadline, run_pieces
from indexer.agents.caller import CODEX
from indexer.agents.reference import wrap_reference
from indexer.agents.usage import UsageEvent
from indexer.util.named_record import NamedTuple
from indexer.util.quick_json import dumps, loads
from indexer.text.safe import make_safe

TYPE_CHECKING = False
if TYPE_CHECKING:  # the prompt's detectors and the index are imported by the prompt event only
    from pathlib import Path  # the index is opened by its str path: no pathlib for a prompt
    from typing import Any, TextIO

    from indexer.agents.recall import RecallMatch
    from indexer.agents.relevance import RelevantHit, RelevantResult
    from indexer.index import Index
    from indexer.models import Hit, Session

EVENTS = ("session-start", "prompt", "refresh")
EVENT_NAMES = {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "refresh": "Stop"}
STDIN_LIMIT = 4 * 1024 * 1024
STDIN_WAIT_SECONDS = 0.3  # Claude Code writes the event at once; the whole hook has 1 s
SEARCH_DEADLINE_SECONDS = 0.6
INDEX_BUSY_TIMEOUT_MS = 200
PROMPT_HITS = 3
HIT_SNIPPET_CHARS = 220
REMINDER_MAX_BYTES = 3072  # the prompt reminder never grows past this, however many hits pass

ROUTING_LINE = (
    "Threadback indexes your past sessions (Claude Code, Codex, pi). Before answering from "
    "memory about earlier work, run `threadback search \"<words>\" -C 2` (add "
    "`--exclude-session <this session id>`); `threadback show <session> --around <msg>` opens a hit."
)


class HookAnswer(NamedTuple):
    """What to give the agent ("" for nothing) and what to log (None for nothing)."""

    text: str
    usage: UsageEvent | None


def read_event(stream: TextIO | None, *, wait: float = STDIN_WAIT_SECONDS) -> dict[str, Any]:
    """The hook's JSON object from ``stream``, or {}; never blocks longer than ``wait`` seconds
    when it is a terminal or a pipe nobody writes to. Raises ``ValueError`` on bad JSON."""
    if stream is None or stream.closed or stream.isatty():
        return {}
    data: str | bytes
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
    obj = loads(data) if data.strip() else {}
    return obj if isinstance(obj, dict) else {}


def claude_code_output(event: str, payload: dict[str, Any], text: str) -> str:
    """``text`` as Claude Code's hook JSON (``additionalContext``), one line."""
    name = payload.get("hook_event_name") or EVENT_NAMES[event]
    return dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}})


def hook_output(agent: str, event: str, payload: dict[str, Any], text: str) -> str:
    """``text`` in the JSON the calling agent reads from a hook's stdout.

    Codex reads Claude Code's shape: ``{"hookSpecificOutput": {"hookEventName": <the event>,
    "additionalContext": ...}}``, no other keys in ``hookSpecificOutput``, and the event name must
    be the one that fired (github.com/openai/codex ``codex-rs/hooks/schema/generated/``
    ``session-start.command.output.schema.json``, ``user-prompt-submit.command.output.schema.json``;
    parsed by ``codex-rs/hooks/src/engine/output_parser.rs``). "" when Codex takes no context there."""
    if agent == CODEX:
        name = payload.get("hook_event_name") or EVENT_NAMES[event]
        if name not in ("SessionStart", "UserPromptSubmit"):
            return ""  # Codex takes context only from these two; a Stop answer would be rejected
        return dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}})
    return claude_code_output(event, payload, text)


def answer(event: str, payload: dict[str, Any], *, db_path: "str | Path", memory_dir: str | None = None,
           deadline: float | None = None) -> HookAnswer:
    """Run one hook event; ``payload`` is the event JSON the agent sent; what is not ready by
    ``deadline`` (monotonic; default: the budget from now) is left out with a note."""
    deadline = hook_deadline(time.monotonic()) if deadline is None else deadline
    if event == "session-start":
        return session_start(payload, memory_dir, deadline)
    if event == "prompt":
        return prompt(payload, db_path, deadline)
    if event == "refresh":
        return refresh(payload, db_path)
    raise ValueError(f"unknown hook event {event!r}")


def _session_of(payload: dict[str, Any]) -> str | None:
    value = payload.get("session_id")
    return value if isinstance(value, str) and value else None


def _cwd_of(payload: dict[str, Any]) -> "Path | None":
    from pathlib import Path

    value = payload.get("cwd")
    if isinstance(value, str) and value and Path(value).is_dir():
        return Path(value)
    return None


# --- session-start ------------------------------------------------------------------------------


def session_start(payload: dict[str, Any], memory_dir: str | None, deadline: float) -> HookAnswer:
    # The memory and rule stores (and their YAML library): loaded for this event only.
    from datetime import datetime, timezone  # ~1 ms: the prompt hook has no use for it

    from indexer.agents.context import DEFAULT_MAX_BYTES, FolderContext, material_from, render_context

    now = datetime.now(timezone.utc)
    pieces = FolderContext(memory_dir, _cwd_of(payload)).pieces(now=now, cache_facts=True)
    material = material_from(run_pieces(pieces, deadline), budget_seconds=hook_budget())
    context = render_context(material, max_bytes=DEFAULT_MAX_BYTES - 512)
    text = ROUTING_LINE + ("\n\n" + context if context else "") + "\n"
    return HookAnswer(text, UsageEvent(ts=now.timestamp(), kind="hook-session-start", session=_session_of(payload)))


# --- prompt -------------------------------------------------------------------------------------


def prompt(payload: dict[str, Any], db_path: "str | Path", deadline: float | None = None) -> HookAnswer:
    from indexer.agents.recall import detect_recall

    now = time.time()
    session = _session_of(payload)
    text = payload.get("prompt")
    match = detect_recall(text) if isinstance(text, str) else None
    if match is None:
        return evidence_reminder(text, session, db_path, now, deadline)
    index = open_index_quietly(db_path)
    if index is None:
        return HookAnswer("", UsageEvent(ts=now, kind="hook-prompt", session=session, fired=True))
    try:
        found = find_relevant(index, match.terms, session, deadline=deadline)
        changed = changed_since_line(index, [h.hit.session for h in found.hits])
    finally:
        index.close()
    query = found.query or match.query
    event = UsageEvent(ts=now, kind="hook-prompt", query=query or None, hits=len(found.hits) if query else None,
                       excluded=(session,) if session else (), session=session, fired=True)
    return HookAnswer(recall_reminder(match, query, session, list(found.hits), changed), event)


def changed_since_line(index: "Index", sessions: "list[Session]") -> str:
    """One line naming the files the recalled sessions wrote that changed since (or "")."""
    from indexer.provenance.changed_files import changed_line, files_changed_since

    try:
        paths = list(dict.fromkeys(p for s in sessions for p in files_changed_since(index, s)))
    except Exception:  # a hook never fails on an extra: the reminder goes out without it
        return ""
    line = changed_line(paths)
    return make_safe(line) if line else ""


def evidence_reminder(text: object, session: str | None, db_path: "str | Path", now: float,
                      deadline: float | None = None) -> HookAnswer:
    """No trigger phrase: speak only when the prompt reports an error that past sessions hold
    with the same details (``indexer.agents.evidence``); otherwise nothing, and only the fact of
    the call is logged."""
    from indexer.agents.evidence import find_evidence

    quiet = HookAnswer("", UsageEvent(ts=now, kind="hook-prompt", session=session, fired=False))
    evidence = find_evidence(text) if isinstance(text, str) else None
    if evidence is None or (index := open_index_quietly(db_path)) is None:
        return quiet
    try:
        found = find_relevant(index, evidence.terms, session, required=evidence.required, deadline=deadline)
    finally:
        index.close()
    if not found.hits:
        return quiet
    lines = [f"Threadback: {evidence.artifact} has come up in past sessions. Check what was found and "
             "done there before starting over:", "  " + make_safe(search_command(found.query, session))]
    event = UsageEvent(ts=now, kind="hook-prompt", query=found.query, hits=len(found.hits),
                       excluded=(session,) if session else (), session=session, fired=False)
    return HookAnswer(hits_block("\n".join(lines) + "\n", list(found.hits)), event)


def open_index_quietly(path: "str | Path") -> "Index | None":
    """The index, opened read-only and waiting at most ``INDEX_BUSY_TIMEOUT_MS`` for a lock;
    None when it is missing or unusable."""
    from indexer.index import Index

    if not os.path.isfile(path):
        return None
    # The short wait applies from the first statement on: opening reads the schema too.
    index = Index(path, readonly=True, busy_timeout_ms=INDEX_BUSY_TIMEOUT_MS)
    try:
        index.conn.execute("SELECT 1 FROM messages LIMIT 1").fetchall()
    except Exception:
        index.close()
        return None
    return index


def find_relevant(index: "Index", terms: tuple[str, ...], session: str | None,
                  required: tuple[str, ...] = (), deadline: float | None = None) -> "RelevantResult":
    """At most ``PROMPT_HITS`` hits, one per session, that pass the relevance bar
    (``indexer.agents.relevance``), their snippets' secrets masked. Every search together is
    interrupted at ``deadline`` (the hook's; at most ``SEARCH_DEADLINE_SECONDS`` from now); a
    search cut off counts as no hits."""
    from indexer.agents.relevance import CANDIDATES_PER_QUERY, RelevantResult, relevant_hits

    if not terms:
        return RelevantResult("", (), ())
    deadline = min(time.monotonic() + SEARCH_DEADLINE_SECONDS, deadline or float("inf"))
    excluded = (session,) if session else ()
    conn = index.conn
    conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 20000)

    def candidates(query: str) -> "list[Hit]":
        try:
            return list(index.search(query, limit=CANDIDATES_PER_QUERY, exclude_sessions=excluded).hits)
        except Exception:  # a query past the deadline, or one the index cannot answer: no hits
            return []

    try:
        found = relevant_hits(candidates, terms, limit=PROMPT_HITS, deadline=deadline, required=required)
    finally:
        conn.set_progress_handler(None, 0)
    return found._replace(hits=tuple(masked_relevant(h) for h in found.hits))


def masked_relevant(found: "RelevantHit") -> "RelevantHit":
    """``found`` with every secret of its message masked in its snippet (a secret cut off at
    the snippet's edge too, ``indexer.output.masking``); the index keeps the original."""
    from indexer.output.masking import masked_snippet

    snippet, _ = masked_snippet(found.snippet, (), found.hit.message.text)
    return found if snippet == found.snippet else found._replace(snippet=snippet)


def search_command(query: str, session: str | None) -> str:
    import shlex  # a reminder's command lines only: most prompts print none

    parts = ["threadback", "search", shlex.quote(query) if query else '"<words>"']
    if session:
        parts += ["--exclude-session", shlex.quote(session)]
    parts += ["-C", "2"]
    return " ".join(parts)


def open_command(hit: "Hit") -> str:
    """The command that opens a hit in its transcript."""
    import shlex

    return f"threadback show {shlex.quote(hit.session.session_id)} --around {hit.message.id}"


def compact_hit_line(found: "RelevantHit") -> str:
    from datetime import datetime

    s, m = found.hit.session, found.hit.message
    when = datetime.fromtimestamp(m.ts).strftime("%Y-%m-%d") if m.ts else "undated"
    snippet = found.snippet
    if len(snippet) > HIT_SNIPPET_CHARS:
        snippet = snippet[: HIT_SNIPPET_CHARS - 1] + "…"
    # Made visible once, by ``wrap_reference``; the snippet's secrets are masked already.
    how = "" if found.hit.matched == "all words" else f" ({found.hit.matched})"
    return f"- {s.agent} · {s.project_name or '?'} · {when}{how} · `{open_command(found.hit)}`: {snippet}"


def recall_reminder(match: "RecallMatch", query: str, session: str | None, hits: "list[RelevantHit]",
                    changed: str = "") -> str:
    """``changed``: the one line naming files the recalled sessions wrote that changed since."""
    lines = [  # the phrase and the query come from the prompt: shown, never raw
        f"Threadback: this prompt refers to earlier work (\u201c{make_safe(match.phrase)}\u201d). "
        "Search the past sessions before answering from memory:",
        "  " + make_safe(search_command(query, session)),
    ]
    if not query:
        lines.append("  (put the error message, file or command names you are looking for in the quotes)")
    elif not hits:
        lines.append("  (no direct match: try other words, a longer CJK phrase, or the exact error text)")
    if changed and hits:
        lines.append(changed)
    return hits_block("\n".join(lines) + "\n", hits)


def hits_block(head: str, hits: "list[RelevantHit]") -> str:
    """``head`` and as many hits as fit in ``REMINDER_MAX_BYTES``, wrapped as reference data."""
    if not hits:
        return head
    intro = "Matching past sessions (reference data; the command after each one opens it):\n"
    shown = [compact_hit_line(h) for h in hits]
    while shown:
        text = head + intro + wrap_reference("\n".join(shown)) + "\n"
        if len(text.encode("utf-8")) <= REMINDER_MAX_BYTES:
            return text
        shown.pop()
    return head


# --- refresh ------------------------------------------------------------------------------------


def refresh(payload: dict[str, Any], db_path: "str | Path") -> HookAnswer:
    """Start an index run in the background so this session is searchable at once."""
    from pathlib import Path

    from indexer.agents.refresh import start_refresh  # subprocess and the run's records: this event only

    now = time.time()
    if not start_refresh(Path(db_path), now, after_every_turn=payload.get("hook_event_name") == "Stop"):
        return HookAnswer("", None)
    return HookAnswer("", UsageEvent(ts=now, kind="hook-refresh", session=_session_of(payload)))

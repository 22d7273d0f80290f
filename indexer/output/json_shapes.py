"""The JSON every ``--json`` prints: one shape per object, whichever command prints it.

A message is always ``message_json`` (``show``, a hit's context, ``events``); a hit carries the
same message fields, with its snippet in place of the text; a session is always
``session_json``; a memory entry, fact or scratchpad item always has its own shape, alone or
inside a memory hit.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone

from indexer import Hit, Message, SearchResult, Session  # quick_json: a module
from indexer.util import quick_json
from indexer.agents.resume import resume_command, resume_target
from indexer.text.safe import escape_json_specials, suspicious_characters

TYPE_CHECKING = False
if TYPE_CHECKING:  # the memory package loads a YAML library: not needed to print an index search
    from pathlib import Path  # only named in annotations: a search loads no pathlib
    from typing import Any

    from indexer import IndexStats, SessionHit  # IndexStats: browsing's module, not a search's
    from indexer.models import TokenUsage
    from indexer.ingest.progress import IndexSummary
    from indexer.agents.context import ContextMaterial
    from indexer.memory import EpisodicEntry, Fact, MemoryHit, ScratchpadItem, StrengthBreakdown
    from indexer.rules import Rule


def dumps(payload: Any, *, indented: bool = False) -> str:
    """JSON for stdout: non-ASCII text kept readable, but every control, bidi, zero-width or tag
    character written as a ``\\uXXXX`` escape (``textsafe.escape_json_specials``), so the
    data is exact and a terminal never receives one raw. One line is written without loading
    ``json`` (``indexer.util.quick_json``): a ``search --json`` an agent runs pays nothing for it."""
    if indented:
        import json

        text = json.dumps(payload, ensure_ascii=False, indent=2, default=str)
    else:
        text = quick_json.dumps(payload, default=str)
    return escape_json_specials(text)


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat().replace("+00:00", "Z")


# --- the session index ------------------------------------------------------------------------


def tokens_json(tokens: TokenUsage | None) -> dict | None:
    if tokens is None:
        return None
    return {"input": tokens.input, "output": tokens.output, "cache_write": tokens.cache_write,
            "cache_read": tokens.cache_read, "total": tokens.total}


def session_json(s: Session, now: float | None = None) -> dict:
    """``now`` decides "active" (a log written to in the last minutes); default: the clock."""
    from indexer.activity import is_active  # with the day strip's records: not every search's

    return {
        "agent": s.agent,
        "session_id": s.session_id,
        "parent_session_id": s.parent_session_id,
        "parent_indexed": not s.parent_missing if s.parent_session_id else None,
        "branched_from": s.branched_from,
        "project": s.project_name,
        "project_path": s.project_path,
        "git_branch": s.git_branch,
        "model": s.model,
        "title": s.title,
        "start": iso(s.start_ts),
        "end": iso(s.end_ts),
        "message_count": s.message_count,
        "source_path": s.source_path,
        "source_missing": s.source_missing,
        "archived": s.archived,
        "archived_only": s.archived_only,
        "resume_cwd": s.resume_cwd,
        "tokens": tokens_json(s.tokens),
        "log_modified": iso(s.log_mtime),
        "active": is_active(s, time.time() if now is None else now),
    }


def message_json(m: Message, *, with_text: bool = True) -> dict:
    body: dict[str, Any] = {
        "message_id": m.id,
        "ordinal": m.ordinal,
        "time": iso(m.ts),
        "role": m.role,
        "kind": m.kind,
        "tool": m.tool_name,
        "mark": m.mark,
    }
    if with_text:
        body["text"] = m.text
    return body


def event_json(s: Session, m: Message) -> dict:
    """One line of ``events``: the message with the session facts a stream consumer needs."""
    return {"session": s.session_id, "agent": s.agent, "cwd": s.project_path, "model": s.model, **message_json(m)}


def resume_json(session: Session, parent: Session | None) -> dict:
    """What resumes the work a hit belongs to: a subagent's parent, else the session itself."""
    try:
        command = resume_command(session, parent)
    except ValueError:  # an agent this version does not know
        command = None
    return {"session_id": resume_target(session), "agent": session.agent, "command": command}


def hit_json(hit: Hit) -> dict:
    s = hit.session
    return {
        "agent": s.agent,
        "session_id": s.session_id,
        "parent_session_id": s.parent_session_id,
        "resume": resume_json(s, hit.parent),
        "project": s.project_name,
        "project_path": s.project_path,
        **message_json(hit.message, with_text=False),
        "snippet": hit.snippet,
        "spans": [list(sp) for sp in hit.spans],
        "score": hit.score,
        "matched": hit.matched,
        "context_before": [message_json(c) for c in hit.context_before],
        "context_after": [message_json(c) for c in hit.context_after],
    }


def session_hit_json(found: SessionHit) -> dict:
    """A session of a session-level search: the session, its score and its evidence hits."""
    return {
        **session_json(found.session),
        "score": found.score,
        "matched": found.matched,
        "matching_messages": found.matches,
        "resume": resume_json(found.session, found.parent),
        "evidence": [hit_json(h) for h in found.evidence],
    }


def search_json(result: SearchResult, *, budget: int = 0) -> dict:
    """The hits (or, in the session view, the sessions) that fit in ``budget`` bytes (0: all),
    and what to try when there are none. ``hits`` is always there: in the session view it holds
    each session's best hit, so a reader of hits works in both views."""
    items = [session_hit_json(s) for s in result.sessions] if result.by_session else [hit_json(h) for h in result.hits]
    kept: list[dict] = []
    used = omitted = 0
    for item in items:
        size = len(quick_json.dumps(item).encode("utf-8"))
        if budget and used + size > budget and kept:
            omitted = len(items) - len(kept)
            break
        kept.append(item)
        used += size
    body = {
        "query": result.query.raw,
        "view": "sessions" if result.by_session else "messages",
        "total": result.total,
        "capped": result.capped,
        "omitted": omitted,
        "warnings": list(result.warnings),
        "notes": list(result.notes),
        "hits": [item["evidence"][0] for item in kept] if result.by_session else kept,
        "suggestions": _suggestions(result) if not kept else [],
        **recall_json(result),
    }
    if result.by_session:
        body["sessions"] = kept
    return body


def recall_json(result: SearchResult) -> dict:
    """How the answer was found: how many hold every word (``exact_total``; the rest are
    closest matches, each with its ``matched``), the spellings searched instead of typed words,
    whether meaning was searched, what was tried and what was not searched."""
    return {
        "exact_total": result.exact_total if result.exact_total >= 0 else result.total,
        "showing_results_for": result.showing_results_for,
        "meaning": result.meaning,
        "tried": list(result.tried),
        "not_searched": list(result.not_searched),
    }


def index_run_json(db: str, summary: IndexSummary, stats: IndexStats) -> dict:
    return {
        "db": db,
        "files_seen": summary.files_seen,
        "files_new": summary.files_new,
        "files_appended": summary.files_appended,
        "files_reindexed": summary.files_reindexed,
        "files_missing": summary.files_missing,
        "files_returned": summary.files_returned,
        "sessions_touched": summary.sessions_touched,
        "messages_added": summary.messages_added,
        "bytes_read": summary.bytes_read,
        "seconds": round(summary.seconds, 3),
        "sessions": stats.sessions,
        "messages": stats.messages,
        "problems": summary.problems,
        "files_failing": summary.files_failing,
        "archive_files": summary.archive_files,
        "archive_bytes": summary.archive_bytes,
    }


# --- memory -----------------------------------------------------------------------------------


def entry_json(entry: EpisodicEntry, breakdown: StrengthBreakdown | None = None) -> dict:
    """An episodic entry, with its strength when known."""
    body: dict[str, Any] = {"kind": "episodic", **entry.to_dict()}
    if breakdown is not None:
        body["strength"] = round(breakdown.strength, 4)
    return body


def fact_json(fact: Fact) -> dict:
    return {"kind": "fact", **fact.to_dict()}


def item_json(item: ScratchpadItem) -> dict:
    """A scratchpad item (its ``kind`` is ``checklist`` or ``bullet``)."""
    return item.to_dict()


def memory_json(thing: EpisodicEntry | Fact) -> dict:
    """An episodic entry or a fact, whichever ``thing`` is (archive and restore take either)."""
    from indexer.memory import Fact

    return fact_json(thing) if isinstance(thing, Fact) else entry_json(thing)


def memory_hit_json(hit: MemoryHit) -> dict:
    body: dict[str, Any] = {"kind": hit.kind, "id": hit.id, "text": hit.text}
    if hit.strength is not None:
        body["strength"] = round(hit.strength, 4)
    if hit.fact is not None:
        body["fact"] = fact_json(hit.fact)
    if hit.entry is not None:
        body["entry"] = entry_json(hit.entry)
    if hit.item is not None:
        body["item"] = item_json(hit.item)
    return body


# --- rules --------------------------------------------------------------------------------------


def rule_json(rule: Rule) -> dict:
    from indexer.rules.model import rule_to_json  # the rules package: not on a search's path

    data = rule_to_json(rule)
    data["effective_status"] = rule.effective_status
    data["status_label"] = rule.status_label
    data["approval_verified"] = rule.is_valid_approval
    data["sha256"] = rule.sha256
    data["suspicious_characters"] = [c.label for c in suspicious_characters(rule.text)]
    return data


# --- agents -------------------------------------------------------------------------------------


def context_json(memory_dir: Path | None, rules_dir: Path | None, material: ContextMaterial, text: str,
                 max_bytes: int) -> dict:
    from indexer.agents.context import render_context

    size = len(text.encode("utf-8"))
    return {
        "memory_dir": str(memory_dir) if memory_dir else None,
        "rules_dir": str(rules_dir) if rules_dir else None,  # None: this folder's rules do not count
        "notes": list(material.notes),
        "bytes": size,
        "max_bytes": max_bytes,
        "truncated": size < len(render_context(material, max_bytes=1 << 30).encode("utf-8")),
        "counts": {
            "rules": len(material.rules),
            "facts": len(material.facts),
            "scratchpad": len(material.scratchpad),
            "episodic": len(material.episodic),
        },
        "text": text,
    }


def _suggestions(result: SearchResult) -> list[str]:
    from indexer.search.suggestions import suggestions_for  # only when nothing was found

    return suggestions_for(result.query)

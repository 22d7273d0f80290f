"""Search results as text for a person or an agent, and as JSON; plus no-hit suggestions."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from indexer import Hit, Query, SearchResult
from indexer.models import Message
from indexer.search.query import is_cjk
from tui.cli.terminal import Style, safe_text

CONTEXT_LINE_CHARS = 200


def _when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "undated"


def _iso(ts: float | None) -> str | None:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat().replace("+00:00", "Z") if ts else None


def marked_snippet(hit: Hit, style: Style) -> str:
    out, pos = [], 0
    for start, end in hit.spans:
        out.append(safe_text(hit.snippet[pos:start]))
        out.append(style.mark(safe_text(hit.snippet[start:end])))
        pos = end
    out.append(safe_text(hit.snippet[pos:]))
    return "".join(out)


def _context_line(m: Message, offset: int) -> str:
    text = " ".join(m.text.split())
    if len(text) > CONTEXT_LINE_CHARS:
        text = text[: CONTEXT_LINE_CHARS - 1] + "…"
    label = m.role if m.kind in ("text", "summary") else m.kind.replace("_", " ")
    return f"      {offset:+d} {label}: {safe_text(text)}"


def render_hit_text(n: int, hit: Hit, style: Style) -> str:
    s, m = hit.session, hit.message
    head = " · ".join([
        s.agent,
        s.project_name or "?",
        _when(m.ts),
        m.role if m.kind == "text" else m.kind.replace("_", " "),
        f"session {s.session_id}",
        f"msg {m.id}",
    ])
    lines = [f"[{n}] {style.bold(safe_text(head))}"]
    for i, c in enumerate(hit.context_before):
        lines.append(style.dim(_context_line(c, i - len(hit.context_before))))
    lines.append("    " + marked_snippet(hit, style))
    for i, c in enumerate(hit.context_after):
        lines.append(style.dim(_context_line(c, i + 1)))
    return "\n".join(lines) + "\n"


def render_hits_text(result: SearchResult, style: Style, *, budget: int = 0, offset: int = 0) -> str:
    """Hits as compact text. With ``budget`` (bytes), stop before exceeding it and say how
    many hits were left out, so an agent's context is never flooded."""
    parts: list[str] = []
    used = 0
    shown = 0
    for i, hit in enumerate(result.hits):
        block = render_hit_text(offset + i + 1, hit, style)
        size = len(block.encode("utf-8"))
        if budget and used + size > budget and shown:
            break
        parts.append(block)
        used += size
        shown += 1
    omitted = len(result.hits) - shown
    more = result.total - offset - len(result.hits)
    if omitted:
        parts.append(f"…[{omitted} more hits omitted]\n")
    if more > 0:
        plus = "+" if result.capped else ""
        parts.append(style.dim(f"({more}{plus} more matches: --offset {offset + len(result.hits)} for the next page)") + "\n")
    return "".join(parts)


def hit_json(hit: Hit) -> dict:
    s, m = hit.session, hit.message

    def ctx(c: Message) -> dict:
        return {"message_id": c.id, "role": c.role, "kind": c.kind, "tool": c.tool_name, "time": _iso(c.ts), "text": c.text}

    return {
        "agent": s.agent,
        "session_id": s.session_id,
        "project": s.project_name,
        "project_path": s.project_path,
        "time": _iso(m.ts),
        "role": m.role,
        "kind": m.kind,
        "tool": m.tool_name,
        "message_id": m.id,
        "snippet": hit.snippet,
        "spans": [list(sp) for sp in hit.spans],
        "score": hit.score,
        "context_before": [ctx(c) for c in hit.context_before],
        "context_after": [ctx(c) for c in hit.context_after],
    }


def render_hits_json(result: SearchResult, *, budget: int = 0) -> str:
    hits, used, omitted = [], 0, 0
    for hit in result.hits:
        item = hit_json(hit)
        size = len(json.dumps(item, ensure_ascii=False).encode("utf-8"))
        if budget and used + size > budget and hits:
            omitted = len(result.hits) - len(hits)
            break
        hits.append(item)
        used += size
    return json.dumps({
        "query": result.query.raw,
        "total": result.total,
        "capped": result.capped,
        "omitted": omitted,
        "warnings": list(result.warnings),
        "hits": hits,
        "suggestions": suggestions_for(result.query) if not hits else [],
    }, ensure_ascii=False)


def suggestions_for(query: Query) -> list[str]:
    """What to try when nothing matched: concrete rewrites of the query, not a bare 'no results'."""
    tips: list[str] = []
    filters = [
        f"{k}:{v}" for k, v in (("agent", query.agent), ("project", query.project), ("session", query.session), ("role", query.role))
        if v
    ]
    if query.since is not None or query.until is not None:
        filters.append("since:/until:")
    for f in filters:
        tips.append(f"drop the filter {f}")
    terms = query.positive_terms
    if len(query.groups) > 1:
        tips.append("fewer words (every word must match), or join alternatives with OR: " + " OR ".join(t.text for t in terms))
    for t in terms:
        if t.phrase and " " in t.text:
            tips.append(f"the words of \"{t.text}\" without quotes (they need not be adjacent)")
        if len(t.text) == 2 and all(is_cjk(c) for c in t.text):
            tips.append(f"a longer CJK phrase containing {t.text}, or a synonym")
        elif len(t.text) > 12 and not t.phrase:
            tips.append(f"a shorter part of {t.text} (matching is by substring)")
    if query.excluded:
        tips.append("remove the -exclusions")
    if not tips:
        tips.append("other words for the same thing (e.g. the error message, a file name, the command you ran)")
    return tips

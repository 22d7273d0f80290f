"""The index commands' output for a person: hits, transcripts, session lists, index progress.

Log text is untrusted: it goes through ``safe_text`` before it reaches the terminal. The JSON
forms are in ``indexer.output.json_shapes``.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime

from indexer import Hit, SearchResult, Session, SessionHit
from indexer.agents.resume import resume_target
from indexer.text.ages import relative_age
from indexer.models import Message
from tui.cli.terminal import Style, safe_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # an index run's progress: not loaded by a search
    from collections.abc import Sequence

    from indexer.ingest.progress import IndexProgress

CONTEXT_LINE_CHARS = 200


def _when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "undated"


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
    lines = [f"[{n}] {style.bold(safe_text(head))}" + _how(hit.matched, style)]
    for i, c in enumerate(hit.context_before):
        lines.append(style.dim(_context_line(c, i - len(hit.context_before))))
    lines.append("    " + marked_snippet(hit, style))
    for i, c in enumerate(hit.context_after):
        lines.append(style.dim(_context_line(c, i + 1)))
    return "\n".join(lines) + "\n"


def _how(matched: str, style: Style) -> str:
    """A closest match says how it matched; an exact one says nothing."""
    return "" if matched == "all words" else " " + style.dim(f"({matched})")


CLOSEST_DIVIDER = "── not an exact match: what follows holds part of the query ──"


def recall_header(result: SearchResult) -> str:
    """"showing results for …" when near spellings were searched instead of typed words."""
    respelled = result.showing_results_for
    return f"showing results for {safe_text(respelled)!r}\n" if respelled else ""


def render_session_text(n: int, found: SessionHit, style: Style) -> str:
    """A session of a session-level search: who, where, when, how many messages matched, what
    resumes it, then its best messages."""
    s = found.session
    when = _when(s.end_ts or s.start_ts)
    matches = f"{found.matches} matching message{'s' if found.matches != 1 else ''}"
    head = " · ".join([s.agent, s.project_name or "?", when, f"session {s.session_id}", matches])
    lines = [f"[{n}] {style.bold(safe_text(head))}" + _how(found.matched, style)]
    if s.title:
        lines.append("    " + style.dim(safe_text(" ".join(s.title.split())[:120])))
    target = resume_target(s)
    if target != s.session_id:
        lines.append("    " + style.dim(safe_text(f"subagent of {target}: resume that session")))
    for hit in found.evidence:
        m = hit.message
        label = m.role if m.kind == "text" else m.kind.replace("_", " ")
        lines.append(f"    {style.dim(label + ' · msg ' + str(m.id))}: " + marked_snippet(hit, style))
    return "\n".join(lines) + "\n"


def render_hits_text(result: SearchResult, style: Style, *, budget: int = 0, offset: int = 0) -> str:
    """Hits (or the session view's sessions) as compact text. With ``budget`` (bytes), stop
    before exceeding it and say how many were left out, so an agent's context is never flooded."""
    parts: list[str] = []
    used = 0
    shown = 0
    items: Sequence[Hit | SessionHit] = result.sessions if result.by_session else result.hits
    parts.append(recall_header(result))
    for i, item in enumerate(items):
        if i == result.closest_from and (i or offset < result.exact_total or result.exact_total == 0):
            parts.append(style.dim(CLOSEST_DIVIDER) + "\n")
        if isinstance(item, SessionHit):
            block = render_session_text(offset + i + 1, item, style)
        else:
            block = render_hit_text(offset + i + 1, item, style)
        size = len(block.encode("utf-8"))
        if budget and used + size > budget and shown:
            break
        parts.append(block)
        used += size
        shown += 1
    omitted = len(items) - shown
    more = result.total - offset - len(items)
    what = "sessions" if result.by_session else "hits"
    if omitted:
        parts.append(f"…[{omitted} more {what} omitted]\n")
    if more > 0:
        plus = "+" if result.capped else ""
        noun = "sessions" if result.by_session else "matches"
        parts.append(style.dim(f"({more}{plus} more {noun}: --offset {offset + len(items)} for the next page)") + "\n")
    return "".join(parts)


# --- transcripts and session lists -------------------------------------------------------


def local_time(ts: float | None) -> str:
    if ts is None:
        return "----------------"
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def session_header(s: Session, now: float | None = None) -> str:
    """The ``show`` header: who, where, when (and how long ago its last message was), how much."""
    import time

    span = local_time(s.start_ts)
    if s.end_ts and s.start_ts:
        span += f" → {local_time(s.end_ts)[11:]}"
    if s.end_ts or s.start_ts:
        span += f" ({relative_age(s.end_ts or s.start_ts, time.time() if now is None else now)})"
    parts = [s.agent, s.project_name or "?", s.session_id, span, f"{s.message_count} messages"]
    if s.parent_session_id:
        parts.append(f"subagent of {s.parent_session_id}")
    if s.branched_from:
        parts.append(f"branched from {s.branched_from}")
    if s.archived_only:
        parts.append("log file deleted, archived copy only (`threadback restore` brings it back)")
    elif s.source_missing:
        parts.append("log file deleted")
    if s.tokens is not None:
        from tui.display.tokens import token_summary  # a session's header (``show``), not a hit's

        parts.append(token_summary(s.tokens))
    return "── " + " · ".join(parts) + (f"\n   {s.title}" if s.title else "")


ROLE_LABELS = {"user": "user", "assistant": "assistant", "tool": "result", "system": "system", "meta": "injected"}
RESULT_LINES = 6  # a tool result shows this many lines without --full
THINKING_CHARS = 300  # thinking is cut here without --full
INJECTED_CHARS = 120  # injected context shows this much of its first line without --full


def _short_result(text: str) -> str:
    """A tool result's first lines, and how many more ``--full`` would show."""
    lines = text.splitlines()
    shown = "\n".join(lines[:RESULT_LINES])
    if len(lines) > RESULT_LINES:
        shown += f"\n… {len(lines) - RESULT_LINES} more lines (use --full)"
    return shown


def _short_thinking(text: str) -> str:
    return text if len(text) < THINKING_CHARS else text[:THINKING_CHARS] + "… (use --full)"


def _short_injected(text: str) -> str:
    """Injected context's first line, cut: enough to tell what was injected."""
    return text.splitlines()[0][:INJECTED_CHARS] + " … (injected, use --full)" if text else text


def _shown_text(m: Message, full: bool) -> str:
    """The message's text, cut by kind unless ``full`` (not yet made safe to print)."""
    if full:
        return m.text
    if m.kind == "tool_result":
        return _short_result(m.text)
    if m.kind == "thinking":
        return _short_thinking(m.text)
    if m.role == "meta":
        return _short_injected(m.text)
    return m.text


def _kind_label(m: Message, full: bool) -> str:
    """What the message is, after its time. Without ``full`` an injected (``meta``) summary or
    error is labelled "injected", as its cut text says."""
    if m.kind == "tool_result":
        return f"result{f' ({m.tool_name})' if m.tool_name else ''}"
    if m.kind == "thinking":
        return "thinking"
    if m.kind in ("summary", "error") and (full or m.role != "meta"):
        return m.kind
    return ROLE_LABELS.get(m.role, m.role)


def format_message(m: Message, style: Style, *, full: bool, mark: bool = False) -> str:
    """One message of ``show``: a head line (``>>`` marks ``mark``), then its text indented;
    a tool call stays on one line."""
    when = local_time(m.ts)[11:] if m.ts else "--:--"
    prefix = ">> " if mark else ""
    label = _kind_label(m, full)
    if m.mark:
        label += f" ({m.mark})"
    head = f"{prefix}[{when}] #{m.id} {label}:"
    body = safe_text(_shown_text(m, full))
    colour = {"user": style.user, "assistant": style.assistant}.get(m.role, style.dim)
    if m.kind == "tool_call":
        return f"{head} {style.tool(body)}"
    indented = "\n".join("    " + line for line in body.splitlines())
    return f"{colour(head)}\n{indented}"


def session_line(s: Session, style: Style) -> str:
    """One row of ``threadback sessions``."""
    title = safe_text(s.title or "")[:70]
    if s.parent_missing:
        title = f"(subagent, parent not indexed) {title}"
    if s.archived_only:
        title = f"(archived copy only) {title}"
    project = f"{safe_text(s.project_name or '?')[:20]:<20}"  # padded before styling
    return (f"{local_time(s.start_ts)}  {s.agent:<11} {style.bold(project)}  "
            f"{safe_text(s.session_id)[:36]:<36} {s.message_count:>5}  {title}")


# --- progress on stderr -----------------------------------------------------------------------------


class ProgressOutput:
    """stderr for a progress display, until a write fails: then quiet. A display that can no
    longer be written (``2>&1 | head -1``, a closed terminal) must not stop the run it shows,
    which would end the index run or the compaction halfway."""

    def __init__(self) -> None:
        self._gone = False

    def write(self, text: str) -> None:
        if self._gone:
            return
        try:
            sys.stderr.write(text)
            sys.stderr.flush()
        except (OSError, ValueError):
            self._gone = True


class StatusLine:
    """One line on stderr (a terminal) redrawn in place, at most 10 times a second, cut to the
    terminal's width (a wrapped line could not be redrawn), and cleared at the end."""

    def __init__(self) -> None:
        self._last = 0.0
        self._out = ProgressOutput()

    def show(self, text: str, *, now: bool = False) -> None:
        """Draw ``text``; unless ``now``, skipped within 0.1 s of the last line drawn."""
        moment = time.monotonic()
        if not now and moment - self._last < 0.1:
            return
        self._last = moment
        self._out.write("\r" + text[:_line_width()] + "\x1b[K")

    def clear(self) -> None:
        self._out.write("\r\x1b[K")


def _line_width() -> int:
    """The terminal's width less one (a line that fills it would wrap), at most 200."""
    try:
        columns = os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):  # not a terminal after all, or no file behind it
        columns = 0
    return min(200, columns - 1) if columns > 1 else 200  # 0: a terminal that does not say


def progress_bar(fraction: float, width: int = 24) -> str:
    """``█████░░░░`` for ``fraction`` (0 to 1) done."""
    filled = int(width * min(1.0, max(0.0, fraction)))
    return "█" * filled + "░" * (width - filled)


class ProgressLine(StatusLine):
    """An index run's progress as one ``StatusLine``."""

    def __call__(self, p: IndexProgress) -> None:
        eta = p.eta_seconds
        self.show(
            f"{progress_bar(p.fraction)} {p.fraction * 100:5.1f}%  {p.files_done:,}/{p.files_total:,} files · "
            f"{p.bytes_done / 1e6:,.1f}/{p.bytes_total / 1e6:,.1f} MB · {p.sessions_touched:,} sessions"
            + (f" · ~{eta:.0f}s left" if eta is not None and not p.step else "")
            + (f" · {p.step}…" if p.step else ""),
            now=p.files_done >= p.files_total,
        )

"""A session as compact Markdown, to hand to another agent: the conversation in full, tool calls
as one line each, only the head of each tool output, thinking and injected text left out, and a
note at the top saying exactly what was trimmed, so the reader knows what it is not seeing.

Log text is untrusted: control and invisible characters become visible markers
(``indexer.text.safe``), and text inside a code block gets a fence longer than any backtick run
it holds, so it cannot close the block early.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone

from indexer.export.collect import SessionExport, subagent_of
from indexer.models import ERROR, SUMMARY, THINKING, TOOL_CALL, TOOL_RESULT, Message, Session
from indexer.text.safe import make_visible

OUTPUT_HEAD_LINES = 8  # lines of each tool output kept
OUTPUT_HEAD_CHARS = 1200
CALL_CHARS = 300  # a tool call's one line


@dataclass
class Trimmed:
    """What the Markdown left out, counted for the note at the top."""

    thinking: int = 0
    injected: int = 0
    outputs_cut: int = 0
    output_lines_cut: int = 0
    notes: list[str] = field(default_factory=list)

    def summary(self, masked: bool) -> str:
        parts = []
        if self.outputs_cut:
            parts.append(f"{self.outputs_cut} tool output(s) cut to their first {OUTPUT_HEAD_LINES} lines "
                         f"({self.output_lines_cut} lines left out)")
        if self.thinking:
            parts.append(f"{self.thinking} thinking block(s) left out")
        if self.injected:
            parts.append(f"{self.injected} injected message(s) (skills, AGENTS.md, environment) left out")
        if masked:
            parts.append("secrets masked")
        return "; ".join(parts) if parts else "nothing"


def utc(ts: float | None) -> str:
    if ts is None:
        return "unknown time"
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def safe(text: str) -> str:
    return make_visible(text, tab="\t")  # a tab is layout: kept; every other special is marked


def fenced(text: str, info: str = "") -> str:
    """``text`` in a code block whose fence no backtick run inside can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def inline_code(text: str) -> str:
    """``text`` as a code span that no backtick inside can end (CommonMark: a longer run)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def session_lines(s: Session) -> list[str]:
    facts = [f"- agent: {safe(s.agent)}", f"- session: `{safe(s.session_id)}`"]
    if s.project_path:
        facts.append(f"- folder: `{safe(s.project_path)}`")
    if s.git_branch:
        facts.append(f"- branch: `{safe(s.git_branch)}`")
    if s.model:
        facts.append(f"- model: {safe(s.model)}")
    facts.append(f"- time: {utc(s.start_ts)} to {utc(s.end_ts)}, {s.message_count} messages")
    if s.parent_session_id:
        facts.append(f"- subagent of `{safe(s.parent_session_id)}`")
    if s.branched_from:
        facts.append(f"- branched from `{safe(s.branched_from)}`")
    return facts


def _output_head(text: str, trimmed: Trimmed) -> str:
    lines = text.splitlines()
    head = "\n".join(lines[:OUTPUT_HEAD_LINES])
    more = max(0, len(lines) - OUTPUT_HEAD_LINES)
    cut = bool(more)
    if len(head) > OUTPUT_HEAD_CHARS:
        head, cut = head[:OUTPUT_HEAD_CHARS] + " …", True
    if cut:
        trimmed.outputs_cut += 1
        trimmed.output_lines_cut += more
        head += f"\n… ({more} more lines)" if more else "\n… (the rest of this line cut)"
    return head


def message_block(m: Message, export: SessionExport, trimmed: Trimmed) -> str | None:
    """One message as Markdown, or None when it is left out (counted in ``trimmed``)."""
    if m.kind == THINKING:
        trimmed.thinking += 1
        return None
    if m.role == "meta":
        trimmed.injected += 1
        return None
    mark = f" ({safe(m.mark)})" if m.mark else ""
    if m.kind == TOOL_CALL:
        line = " ".join(m.text.split())
        line = line if len(line) <= CALL_CHARS else line[:CALL_CHARS] + " …"
        return f"- tool call{mark}: {inline_code(safe(line))}"
    if m.kind == TOOL_RESULT:
        sub = subagent_of(m, export.subagents)
        where = f" (subagent `{safe(sub.session.session_id)}`, below)" if sub else ""
        name = f" of {safe(m.tool_name)}" if m.tool_name else ""
        return f"- output{name}{where}{mark}:\n\n" + fenced(safe(_output_head(m.text, trimmed)))
    label = {SUMMARY: "summary", ERROR: "error"}.get(m.kind, m.role)
    return f"**{label}** · {utc(m.ts)[11:16]}{mark}\n\n{safe(m.text)}"


def _session_markdown(export: SessionExport, trimmed: Trimmed, level: int) -> list[str]:
    s = export.session
    title = safe(" ".join((s.title or "(untitled session)").split()))[:200]
    out = [f"{'#' * level} {title}", "", *session_lines(s), ""]
    for m in export.messages:
        block = message_block(m, export, trimmed)
        if block is not None:
            out += [block, ""]
    for sub in export.subagents:
        out += _session_markdown(sub, trimmed, min(level + 1, 6))
    if export.subagents_left_out:
        out += [f"({export.subagents_left_out} deeper subagent session(s) not included)", ""]
    return out


def to_markdown(export: SessionExport) -> str:
    trimmed = Trimmed()
    body = _session_markdown(export, trimmed, 1)
    note = f"> Exported by Threadback for reading, not the full log. Trimmed: {trimmed.summary(export.secrets_masked)}."
    return "\n".join([body[0], "", note, *body[1:]]).rstrip() + "\n"

"""A third-party agent for Threadback, as docs/agents.md walks through it: "notes-agent" keeps
one JSONL file a session under ``~/.notes-agent/sessions/``, each line ``{"who": "me" | "bot",
"said": "...", "at": "<ISO time>", "cwd": "..."}``. Registered by its package's entry point::

    [project.entry-points."threadback.agents"]
    notes-agent = "threadback_notes_agent:AGENT"
"""

from __future__ import annotations

import os
from pathlib import Path

from indexer.sources import Agent
from indexer.sources.base import ParseOutput, SessionMeta, iter_json_lines, parse_iso
from indexer.sources.emit import Emitter
from indexer.sources.fields import as_str, scalar_text

NAME = "notes-agent"


# -- the parser: the four functions of indexer.sources.interface.AgentParser --------------------
def default_roots() -> list[Path]:
    home = os.environ.get("NOTES_AGENT_HOME") or str(Path.home() / ".notes-agent")
    return [Path(home).expanduser() / "sessions"]


def is_log_file(name: str) -> bool:
    return name.endswith(".jsonl")


def init_meta(path: Path, meta: SessionMeta) -> None:
    meta.session_id = path.stem


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    out = ParseOutput()
    if meta.session_id is None:
        init_meta(path, meta)
    emit = Emitter(NAME, meta, out)
    for line_no, record in iter_json_lines(data, out, first_line_no):
        if not isinstance(record, dict):
            continue
        if as_str(record.get("cwd")):
            meta.project_path = as_str(record.get("cwd"))
        role = "user" if record.get("who") == "me" else "assistant"
        emit.said(role, scalar_text(record.get("said")), f"line{line_no}", 0, parse_iso(record.get("at")))
    return out


# -- the registry entry ----------------------------------------------------------------------------
AGENT = Agent(
    NAME, "Notes agent", "threadback_notes_agent", "--notes-agent-dir", "sessions",
    home="~/.notes-agent", home_env=("NOTES_AGENT_HOME",), reading="lines",
    resume_argv=("notes-agent", "--continue", "{id}"), fork_argv=(), no_resume="",
    subagent_resumes_parent=False,
    programs=("notes-agent",), program_prefixes=(), packages=("notes-agent-cli",), env_markers=(),
    instructions=("NOTES.md",), hooks="", mcp_config="", retention="",
)

"""An agent-neutral script of one coding session: turns, tool uses and their output.

The writers turn a script into the log format of the agent that ran it. Tool uses are named
by what they do (``bash``, ``read``, ``edit``, ``grep``, ``write``, ``task``); each writer maps
them to its agent's own tools (Claude Code ``Bash``/``Read``..., Codex ``exec_command`` and
``apply_patch``, Pi ``bash``/``read``...).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone


@dataclass(frozen=True)
class ToolUse:
    kind: str  # bash | read | edit | grep | write | task
    target: str  # the command, path, pattern or subagent prompt
    output: str = ""
    error: bool = False
    path: str = ""  # grep: where; edit/write: unused
    old: str = ""  # edit: replaced text
    new: str = ""  # edit: new text; write: file content
    subagent: "Script | None" = None  # task: the subagent's own transcript (Claude Code)


@dataclass(frozen=True)
class Turn:
    role: str  # "user" | "assistant"
    text: str = ""
    thinking: str = ""
    tools: tuple[ToolUse, ...] = ()
    gap: int = 0  # seconds since the previous turn; 0 = a default pace


@dataclass(frozen=True)
class Script:
    """One session. ``about`` says what work really happened in it (it is the label's truth)."""

    slug: str
    agent: str  # claude-code | codex | pi
    lang: str  # en | zh-Hant | zh-Hans | ja
    cwd: str
    start: str  # ISO time, UTC
    about: str
    turns: tuple[Turn, ...]
    traps: str = ""  # what this session is there to test, if anything
    model: str = ""
    git_branch: str = "main"
    title: str = ""  # Pi session name / Claude ai-title, when the agent wrote one
    description: str = ""  # a subagent's description (Claude Code meta.json)

    @property
    def session_id(self) -> str:
        return session_id_for(self)

    def start_time(self) -> datetime:
        return datetime.fromisoformat(self.start.replace("Z", "+00:00")).astimezone(timezone.utc)


def user(text: str, gap: int = 0) -> Turn:
    return Turn("user", text, gap=gap)


def agent(text: str = "", *tools: ToolUse, thinking: str = "", gap: int = 0) -> Turn:
    return Turn("assistant", text, thinking=thinking, tools=tuple(tools), gap=gap)


def bash(command: str, output: str = "", error: bool = False) -> ToolUse:
    return ToolUse("bash", command, output, error)


def read(path: str, output: str = "") -> ToolUse:
    return ToolUse("read", path, output)


def edit(path: str, old: str, new: str) -> ToolUse:
    return ToolUse("edit", path, "", old=old, new=new)


def grep(pattern: str, path: str = ".", output: str = "") -> ToolUse:
    return ToolUse("grep", pattern, output, path=path)


def write(path: str, content: str) -> ToolUse:
    return ToolUse("write", path, "", new=content)


def task(prompt: str, subagent: Script, output: str) -> ToolUse:
    return ToolUse("task", prompt, output, subagent=subagent)


def stable_hex(*parts: str, n: int = 32) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:n]


def session_id_for(script: Script) -> str:
    """Ids shaped like each agent's own: UUIDv4 for Claude Code, time-ordered UUIDv7 for Codex
    and Pi v3, derived from the slug so the labels stay stable when the logs are rewritten."""
    h = stable_hex("threadback-rankset", script.slug)
    if script.agent == "claude-code":
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"
    ms = int(script.start_time().timestamp() * 1000)
    t = f"{ms:012x}"
    return f"{t[:8]}-{t[8:12]}-7{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


class Clock:
    """Timestamps that move forward through a session at a plausible pace."""

    def __init__(self, start: datetime):
        self.now = start

    def tick(self, seconds: float) -> datetime:
        self.now = self.now + timedelta(seconds=seconds)
        return self.now

    @staticmethod
    def iso(moment: datetime) -> str:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass
class Ids:
    """Deterministic ids (uuids, message ids, tool-call ids) within one session."""

    seed: str
    n: int = field(default=0)

    def next(self, kind: str) -> str:
        self.n += 1
        return stable_hex(self.seed, kind, str(self.n))

    def uuid(self) -> str:
        h = self.next("uuid")
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"

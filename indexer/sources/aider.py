"""Aider: ``.aider.chat.history.md`` in each repository it ran in, Markdown appended run after run.

``# aider chat started at 2026-06-09 14:01:00`` opens a run; ``#### `` lines are what the person
typed (aider writes nothing else with that prefix); ``> `` lines are aider's own notes and tool
output (``> Applied edit to src/x.py``); everything else is the model's reply. One file is one
session of the repository, each run marked where it starts; ``aider --restore-chat-history``
in that folder takes it up again. Written from aider's ``aider/io.py`` (``append_chat_history``)
and the fixture of kenn-io/agentsview (MIT). Read whole: a reply cut by a read would split.
"""

from __future__ import annotations

from pathlib import Path

from indexer.sources.base import ParseOutput, SessionMeta, digest, parse_iso
from indexer.sources.emit import Emitter

AGENT = "aider"
HISTORY_FILE = ".aider.chat.history.md"
PROJECT_FILE = HISTORY_FILE  # also looked for in each folder the index knows sessions in (indexer.ingest.discover)
_RUN_HEADER = "# aider chat started at "
# Folders a walk for history files never enters (dependencies, caches, virtualenvs).
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".cache", "target", "dist", "build",
                       ".tox", ".mypy_cache", ".pytest_cache", "vendor", ".npm", ".cargo", ".rustup"})
MAX_DEPTH = 4  # how deep under a root a repository's history file is looked for


def default_roots() -> list[Path]:
    """None of its own: the folders a person configures, and the repositories the index knows
    (``indexer.ingest.discover`` adds them)."""
    return []


def is_log_file(name: str) -> bool:
    return name == HISTORY_FILE


def is_whole_document(path: Path) -> bool:
    return True


def init_meta(path: Path, meta: SessionMeta) -> None:
    folder = str(path.parent)
    meta.session_id = "aider-" + digest(folder)
    meta.project_path = folder


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    out = ParseOutput()
    init_meta(path, meta)
    text = data.decode("utf-8", "replace")
    if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
        out.non_utf8_lines, out.first_non_utf8_line = 1, 1
    _Reader(Emitter(AGENT, meta, out)).read(text.splitlines())
    return out


class _Reader:
    """Lines into messages: a run of lines of one kind is one message."""

    def __init__(self, emit: Emitter):
        self.emit, self.kind, self.start = emit, "", 0
        self.lines: list[str] = []
        self.ts: float | None = None
        self.run_mark: str | None = None  # put on the first message of a run

    def read(self, lines: list[str]) -> None:
        for line_no, line in enumerate(lines, 1):
            kind, body = _kind_of(line)
            if kind == "run":
                self.flush()
                self.ts = parse_iso(body.strip().replace(" ", "T", 1))
                self.run_mark = f"aider run of {body.strip()}"
                continue
            if kind != self.kind:
                self.flush()
                self.kind, self.start = kind, line_no
            self.lines.append(body)
        self.flush()

    def flush(self) -> None:
        text = "\n".join(self.lines).strip()
        where = f"line{self.start}"
        before = len(self.emit.out.messages)
        if text and self.kind in ("user", "assistant"):
            self.emit.said(self.kind, text, where, 0, self.ts)
        elif text and self.kind == "note":
            self.emit.tool_result("aider", text, where, 0, self.ts)
        if self.run_mark and len(self.emit.out.messages) > before:
            self.emit.out.messages[before].mark, self.run_mark = self.run_mark, None
        self.kind, self.lines = "", []


def _kind_of(line: str) -> tuple[str, str]:
    if line.startswith(_RUN_HEADER):
        return "run", line[len(_RUN_HEADER):]
    if line.startswith("#### ") or line == "####":
        return "user", line[5:]
    if line.startswith("> ") or line == ">":
        return "note", line[2:]
    return "assistant", line

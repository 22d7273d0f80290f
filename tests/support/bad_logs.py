"""A log tree with every kind of bad input found in the wild, beside good logs.

Each good message holds a unique marker word (``goodmark00012``); ``build`` returns the markers
an index run over the tree must make searchable. Used by tests/core/ingest/test_ingest_robust.py and by
bench/quality/torture.py (which adds a big generated tree and kills index runs).

Bad classes: lone surrogates (``"\\ud83d"``) in every field that is stored (text, tool output,
cwd, gitBranch, model, a parent session id, a Pi header id, a Codex cwd), a file name that is
not UTF-8, bytes that are not UTF-8 in a line, a line nested thousands deep, a truncated line,
two objects on one line, pretty-printed records (every agent), an empty file, a 1 MB line.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from indexer import only_roots
from indexer.config import SourceRoots

HALF = "\\ud83d"  # a JSON escape of a lone high surrogate: what a log holds, as text
LOW = "\\udc00"
BAD_CLASSES = (
    "surrogate-text", "surrogate-tool-output", "surrogate-cwd", "surrogate-branch", "surrogate-model",
    "surrogate-parent-id", "pi-header-id", "codex-cwd", "codex-parent-id", "non-utf8-name", "non-utf8-bytes", "deep-nesting",
    "truncated-line", "two-objects", "pretty-claude", "pretty-codex", "pretty-pi", "empty-file", "huge-line",
)


@dataclass
class BadTree:
    root: Path
    markers: list[str] = field(default_factory=list)  # every good message's marker
    files: dict[str, Path] = field(default_factory=dict)  # bad class -> the file holding it

    @property
    def roots(self) -> SourceRoots:
        return only_roots({"claude-code": [self.root / "claude"], "codex": [self.root / "codex"], "pi": [self.root / "pi"]})

    def marker(self) -> str:
        word = f"goodmark{len(self.markers):05d}"
        self.markers.append(word)
        return word


def _claude(sid: str, uuid: str, text: str, *, role: str = "user", cwd: str = "/w/demo", branch: str = "main",
            model: str = "claude-x", extra: str = "") -> str:
    """One Claude Code line as raw JSON text, so escapes like ``\\ud83d`` go in as written."""
    if role == "user":
        message = f'{{"role":"user","content":"{text}"}}'
    else:
        message = (f'{{"id":"msg_{uuid}","role":"assistant","model":"{model}",'
                   f'"content":[{{"type":"text","text":"{text}"}}]}}')
    return (f'{{"type":"{role}","uuid":"{uuid}","sessionId":"{sid}","cwd":"{cwd}","gitBranch":"{branch}",'
            f'"timestamp":"2026-03-01T10:00:{len(uuid) % 60:02d}Z","message":{message}{extra}}}')


def _tool_pair(sid: str, uuid: str, command: str, output: str) -> list[str]:
    call = (f'{{"type":"assistant","uuid":"{uuid}a","sessionId":"{sid}","cwd":"/w/demo","timestamp":"2026-03-01T10:01:00Z",'
            f'"message":{{"id":"msg_{uuid}t","role":"assistant","model":"claude-x","content":[{{"type":"tool_use",'
            f'"id":"tu_{uuid}","name":"Bash","input":{{"command":"{command}"}}}}]}}}}')
    result = (f'{{"type":"user","uuid":"{uuid}r","sessionId":"{sid}","cwd":"/w/demo","timestamp":"2026-03-01T10:01:01Z",'
              f'"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"tu_{uuid}","content":"{output}"}}]}}}}')
    return [call, result]


def _write(path: Path, lines: list[str] | bytes, *, end: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(lines, bytes):
        path.write_bytes(lines)
    else:
        path.write_bytes(("\n".join(lines) + ("\n" if end else "")).encode("utf-8"))
    return path


def build(root: Path) -> BadTree:
    """Write the tree under ``root`` (``claude/``, ``codex/``, ``pi/``)."""
    t = BadTree(Path(root))
    claude = t.root / "claude" / "-w-demo"

    def claude_file(cls: str, sid: str, bad: list[str], *, name: str | None = None, where: str = "middle") -> None:
        """The bad lines between two good ones, or before or after them (where a session fact
        read from the first or the latest line comes from the bad one)."""
        good_before = _claude(sid, f"{sid}-g1", f"before the bad line {t.marker()}")
        good_after = _claude(sid, f"{sid}-g2", f"after the bad line {t.marker()}", role="assistant")
        lines = {"first": [*bad, good_before, good_after], "middle": [good_before, *bad, good_after],
                 "last": [good_before, good_after, *bad]}[where]
        t.files[cls] = _write(claude / (name or f"{sid}.jsonl"), lines)

    claude_file("surrogate-text", "s-text", [_claude("s-text", "b1", f"cut emoji {HALF} here")])
    claude_file("surrogate-tool-output", "s-tool", _tool_pair("s-tool", "b2", f"echo {HALF}", f"out {HALF} and {LOW} end"))
    claude_file("surrogate-cwd", "s-cwd", [_claude("s-cwd", "b3", "cwd line", cwd=f"/w/demo{HALF}")], where="first")
    claude_file("surrogate-branch", "s-branch", [_claude("s-branch", "b4", "branch line", branch=f"fix{HALF}")], where="last")
    claude_file("surrogate-model", "s-model", [_claude("s-model", "b5", "model line", role="assistant", model=f"m{HALF}")], where="last")
    # A subagent whose parent session id (read from its records) holds a lone surrogate.
    sub = claude / "agent-a1.jsonl"
    line = _claude(f"s-parent{HALF}", "b6", f"subagent work {t.marker()}", extra=',"isSidechain":true,"agentId":"a1"')
    t.files["surrogate-parent-id"] = _write(sub, [line])
    claude_file("non-utf8-bytes", "s-bytes", [])
    with t.files["non-utf8-bytes"].open("ab") as fh:
        fh.write(_claude("s-bytes", "b7", f"latin1 caf\\u00e9 {t.marker()} XX").encode().replace(b"XX", b"caf\xe9") + b"\n")
    claude_file("deep-nesting", "s-deep", ["[" * 5000 + "]" * 5000])
    claude_file("truncated-line", "s-trunc", [_claude("s-trunc", "b8", "never finished")[:-20]])
    claude_file("two-objects", "s-two", [_claude("s-two", "b9", f"first of two {t.marker()}") + _claude("s-two", "b10", f"second of two {t.marker()}")])
    claude_file("huge-line", "s-huge", [_claude("s-huge", "b11", "x" * 1_000_000)])
    pretty = json.dumps(json.loads(_claude("s-pretty", "b12", f"pretty printed {t.marker()}")), indent=2)
    claude_file("pretty-claude", "s-pretty", [pretty])
    t.files["empty-file"] = _write(claude / "s-empty.jsonl", b"")
    # A file name that is not UTF-8: bytes on disk, a surrogate-escaped str in Python.
    bad_name = os.fsdecode(b"s-name-\xff.jsonl")
    claude_file("non-utf8-name", "s-name", [], name=bad_name)

    # Codex: a cwd with a lone surrogate, and envelope records pretty-printed.
    codex = t.root / "codex" / "2026" / "03" / "01"
    cid = "019c0000-0000-7000-8000-00000000000"
    meta = f'{{"type":"session_meta","timestamp":"2026-03-01T10:00:00Z","payload":{{"id":"{cid}1","cwd":"/w/c{HALF}","timestamp":"2026-03-01T10:00:00Z"}}}}'
    t.files["codex-cwd"] = _write(codex / f"rollout-2026-03-01T10-00-00-{cid}1.jsonl", [meta, _codex_user(f"codex says {t.marker()} {HALF}")])
    child = (f'{{"type":"session_meta","timestamp":"2026-03-01T10:00:00Z","payload":{{"id":"{cid}3","cwd":"/w/c",'
             f'"timestamp":"2026-03-01T10:00:00Z","source":{{"subagent":{{"thread_spawn":{{"parent_thread_id":"p{HALF}"}}}}}}}}}}')
    t.files["codex-parent-id"] = _write(codex / f"rollout-2026-03-01T10-00-02-{cid}3.jsonl", [child, _codex_user(f"codex child {t.marker()}")])
    records = [f'{{"type":"session_meta","timestamp":"2026-03-01T10:00:00Z","payload":{{"id":"{cid}2","cwd":"/w/c","timestamp":"2026-03-01T10:00:00Z"}}}}',
               _codex_user(f"pretty codex {t.marker()}")]
    t.files["pretty-codex"] = _write(codex / f"rollout-2026-03-01T10-00-01-{cid}2.jsonl",
                                     [json.dumps(json.loads(r), indent=2) for r in records])

    # Pi: a header id with a lone surrogate; a session of pretty-printed entries.
    pi = t.root / "pi" / "--w-notes--"
    header = f'{{"type":"session","version":3,"id":"p{HALF}1","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w/notes"}}'
    t.files["pi-header-id"] = _write(pi / "2026-03-01T10-00-00-000Z_p1.jsonl", [header, _pi_user("e1", f"pi entry {t.marker()}")])
    header2 = '{"type":"session","version":3,"id":"p2","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w/notes"}'
    t.files["pretty-pi"] = _write(pi / "2026-03-01T10-00-01-000Z_p2.jsonl",
                                  [json.dumps(json.loads(r), indent=2) for r in (header2, _pi_user("e2", f"pretty pi {t.marker()}"))])
    return t


def _codex_user(text: str) -> str:
    return json.dumps({"type": "response_item", "timestamp": "2026-03-01T10:00:05Z",
                       "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "X"}]}}
                      ).replace('"X"', json.dumps(text).replace("\\\\", "\\"))


def _pi_user(entry: str, text: str) -> str:
    return json.dumps({"type": "message", "id": entry, "parentId": None, "timestamp": "2026-03-01T10:00:05.000Z",
                       "message": {"role": "user", "content": [{"type": "text", "text": "X"}]}}
                      ).replace('"X"', json.dumps(text).replace("\\\\", "\\"))

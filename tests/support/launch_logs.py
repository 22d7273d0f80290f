"""Log trees for resume and export tests: one session per agent, in the agents' real formats
(``../shared/FORMATS.md``), whose cwd is a folder the test chose, plus a fake agent binary.

``hostile_claude_tree`` holds what an export must defuse: an ESC sequence, ``</details><script>``,
a bidi override, a made-up API key, code, thinking, a tool call and its output, and a subagent.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

from indexer import Index, SourceRoots, only_roots

from conftest import FIXED_NOW

CLAUDE_ID = "11111111-aaaa-4bbb-8ccc-000000000001"
CODEX_ID = "22222222-aaaa-4bbb-8ccc-000000000002"
PI_ID = "33333333-aaaa-4bbb-8ccc-000000000003"
SUBAGENT_ID = "a1b2c3d4"
FAKE_KEY = "sk-" + "proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + "Zz9_-Yy8"  # made up
HOSTILE_PROMPT = ("fix the login \u001b[31mred\u001b[0m page </details><script>alert(1)</script> "
                  "and say \u202eevil\u202c; [click](javascript:alert(1)) ![pixel](http://evil.example/p.png) "
                  "key OPENAI_API_KEY=" + FAKE_KEY)
LONG_OUTPUT = "\n".join(f"line {i} of the test output" for i in range(60))


def _write(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _claude_env(sid: str, cwd: str, n: int, **extra) -> dict:
    return {"uuid": f"{sid}-{n}", "sessionId": sid, "cwd": cwd, "timestamp": f"2026-03-01T10:{n:02d}:00Z", **extra}


def claude_log(root: Path, cwd: str, sid: str = CLAUDE_ID, prompt: str = "fix the login page") -> Path:
    """A Claude Code session: a prompt, thinking, a Bash call, its long output, a Task call
    whose subagent (2.1.x layout) answered, and a reply holding a Python code block."""
    slug = "".join(c if c.isalnum() else "-" for c in cwd)
    env = lambda n, **extra: _claude_env(sid, cwd, n, **extra)  # noqa: E731
    _write(root / slug / f"{sid}.jsonl", [
        {"type": "user", **env(0), "message": {"role": "user", "content": prompt}},
        {"type": "assistant", **env(1), "message": {"id": "m1", "role": "assistant", "model": "claude-x", "content": [
            {"type": "thinking", "thinking": "The login handler probably drops the cookie.", "signature": "s"}]}},
        {"type": "assistant", **env(2), "message": {"id": "m1", "role": "assistant", "model": "claude-x", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest tests/test_login.py"}}]}},
        {"type": "user", **env(3), "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": LONG_OUTPUT}]}},
        {"type": "assistant", **env(4), "message": {"id": "m2", "role": "assistant", "model": "claude-x", "content": [
            {"type": "tool_use", "id": "t2", "name": "Task", "input": {"prompt": "find the cookie code",
                                                                       "subagent_type": "Explore"}}]}},
        {"type": "user", **env(5), "toolUseResult": {"agentId": SUBAGENT_ID}, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "cookie code is in auth.py"}]}},
        {"type": "assistant", **env(6), "message": {"id": "m3", "role": "assistant", "model": "claude-x", "content": [
            {"type": "text", "text": "Fixed:\n\n```python\ndef login(user):\n    return set_cookie(user)\n```\n"}]}},
    ])
    sub = root / slug / sid / "subagents" / f"agent-{SUBAGENT_ID}.jsonl"
    _write(sub, [
        {"type": "user", **env(7, isSidechain=True, agentId=SUBAGENT_ID),
         "message": {"role": "user", "content": "find the cookie code"}},
        {"type": "assistant", **env(8, isSidechain=True, agentId=SUBAGENT_ID), "message": {
            "id": "m4", "role": "assistant", "model": "claude-x",
            "content": [{"type": "text", "text": "subagent says: cookie code is in auth.py"}]}},
    ])
    (sub.parent / f"agent-{SUBAGENT_ID}.meta.json").write_text(json.dumps({"agentType": "Explore",
                                                                           "description": "find cookie"}))
    return root / slug / f"{sid}.jsonl"


def codex_log(root: Path, cwd: str, sid: str = CODEX_ID) -> Path:
    return _write(root / "2026/03/01" / f"rollout-2026-03-01T10-00-00-{sid}.jsonl", [
        {"timestamp": "2026-03-01T10:00:00Z", "type": "session_meta", "payload": {"id": sid, "cwd": cwd}},
        {"timestamp": "2026-03-01T10:00:01Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": "tidy the codex logs"}]}},
    ])


def pi_log(root: Path, cwd: str, sid: str = PI_ID) -> Path:
    return _write(root / "--w-app--" / f"2026-03-01T10-00-00-000Z_{sid}.jsonl", [
        {"type": "session", "version": 3, "id": sid, "timestamp": "2026-03-01T10:00:00.000Z", "cwd": cwd},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-03-01T10:00:01.000Z",
         "message": {"role": "user", "content": "tidy the pi logs", "timestamp": 1772359201000}},
    ])


def three_agent_tree(base: Path, cwd: Path, *, prompt: str = "fix the login page") -> SourceRoots:
    claude_log(base / "claude", str(cwd), prompt=prompt)
    codex_log(base / "codex", str(cwd))
    pi_log(base / "pi", str(cwd))
    return only_roots({"claude-code": [base / "claude"], "codex": [base / "codex"], "pi": [base / "pi"]})


def build(roots: SourceRoots, db: Path) -> Path:
    with Index(db) as index:
        summary = index.update(roots, now=FIXED_NOW)
        assert not summary.problems, summary.problems
    return db


FAKE_AGENT = """#!{python}
import json, os, sys
with open(os.environ["FAKE_AGENT_RECORD"], "a", encoding="utf-8") as f:
    f.write(json.dumps({"argv": sys.argv, "cwd": os.getcwd()}) + "\\n")
if os.environ.get("FAKE_AGENT_APPEND"):  # what an agent writes to the session's log
    with open(os.environ["FAKE_AGENT_APPEND"], "a", encoding="utf-8") as f:
        f.write(os.environ["FAKE_AGENT_LINE"] + "\\n")
sys.exit(int(os.environ.get("FAKE_AGENT_EXIT", "0")))
"""


def fake_agents(bin_dir: Path, *names: str) -> Path:
    """Executables named like the agents that append their argv and cwd to
    ``$FAKE_AGENT_RECORD`` as one JSON line (and ``$FAKE_AGENT_LINE`` to the log
    ``$FAKE_AGENT_APPEND``, as a resumed agent does), and exit with ``$FAKE_AGENT_EXIT``."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = bin_dir / name
        path.write_text(FAKE_AGENT.replace("{python}", sys.executable), encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return bin_dir


def recorded_runs(record: Path) -> list[dict]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]

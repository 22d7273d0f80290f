"""Claude Code 2.1.x transcripts: ``projects/<slug>/<sessionId>.jsonl``, one content block a
line sharing ``message.id``, tool results as user records with ``toolUseResult``, and
subagents under ``<sessionId>/subagents/agent-<id>.jsonl`` with their ``.meta.json``."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.quality.ranking.authoring.model import Clock, Ids, Script, ToolUse, Turn

VERSION = "2.1.97"
MODEL = "claude-opus-4-6"
TOOL_NAMES = {"bash": "Bash", "read": "Read", "edit": "Edit", "grep": "Grep", "write": "Write", "task": "Agent"}


def slug_of(cwd: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def write_claude(script: Script, root: Path) -> list[Path]:
    folder = root / "claude-code" / "projects" / slug_of(script.cwd)
    writer = _Transcript(script, script.session_id, agent_id=None, clock=Clock(script.start_time()))
    records = writer.records()
    path = folder / f"{script.session_id}.jsonl"
    written = [_dump(path, records)]
    for sub, agent_id, when in writer.subagents:
        sub_writer = _Transcript(sub, script.session_id, agent_id=agent_id, clock=Clock(when))
        sub_path = folder / script.session_id / "subagents" / f"agent-{agent_id}.jsonl"
        written.append(_dump(sub_path, sub_writer.records()))
        meta = {"agentType": "general-purpose", "description": sub.description or sub.title}
        sub_path.with_name(f"agent-{agent_id}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return written


def _dump(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
    return path


class _Transcript:
    def __init__(self, script: Script, session_id: str, agent_id: str | None, clock: Clock):
        self.script = script
        self.session_id = session_id
        self.agent_id = agent_id
        self.clock = clock
        self.ids = Ids(f"{session_id}/{agent_id or ''}")
        self.parent_uuid: str | None = None
        self.prompt_id = ""
        self.out: list[dict] = []
        self.subagents: list[tuple[Script, str, Any]] = []

    def envelope(self, kind: str, seconds: float) -> dict:
        uuid = self.ids.uuid()
        rec = {"parentUuid": self.parent_uuid, "isSidechain": self.agent_id is not None}
        if self.prompt_id:
            rec["promptId"] = self.prompt_id
        if self.agent_id:
            rec["agentId"] = self.agent_id
        rec.update({"type": kind, "uuid": uuid, "timestamp": Clock.iso(self.clock.tick(seconds)),
                    "userType": "external", "entrypoint": "cli", "cwd": self.script.cwd,
                    "sessionId": self.session_id, "version": VERSION, "gitBranch": self.script.git_branch})
        self.parent_uuid = uuid
        return rec

    def records(self) -> list[dict]:
        if self.agent_id is None:
            self.out.append({"type": "permission-mode", "permissionMode": "default", "sessionId": self.session_id})
        for i, turn in enumerate(self.script.turns):
            if turn.role == "user":
                self.user_turn(turn, first=(i == 0))
            else:
                self.assistant_turn(turn)
        if self.agent_id is None:
            if self.script.title:
                self.out.append({"type": "ai-title", "aiTitle": self.script.title, "sessionId": self.session_id})
            last = [t.text for t in self.script.turns if t.role == "user"][-1:]
            if last:
                self.out.append({"type": "last-prompt", "lastPrompt": last[0][:200], "sessionId": self.session_id})
        return self.out

    def user_turn(self, turn: Turn, first: bool) -> None:
        self.prompt_id = self.ids.uuid()
        rec = self.envelope("user", turn.gap or (2 if first else 75))
        rec["message"] = {"role": "user", "content": turn.text}
        rec["permissionMode"] = "default"
        self.out.append(rec)

    def assistant_turn(self, turn: Turn) -> None:
        message_id = "msg_01" + self.ids.next("msg")[:22]
        blocks: list[tuple[dict, ToolUse | None]] = []
        if turn.thinking:
            blocks.append(({"type": "thinking", "thinking": turn.thinking, "signature": "Eq" + self.ids.next("sig") * 3}, None))
        if turn.text:
            blocks.append(({"type": "text", "text": turn.text}, None))
        for tool in turn.tools:
            blocks.append(({"type": "tool_use", "id": "toolu_01" + self.ids.next("tool")[:22],
                            "name": TOOL_NAMES[tool.kind], "input": self.tool_input(tool)}, tool))
        pending: list[tuple[dict, ToolUse, str]] = []
        for n, (block, tool) in enumerate(blocks):
            rec = self.envelope("assistant", (turn.gap or 6) if n == 0 else 1)
            rec["message"] = {
                "model": MODEL, "id": message_id, "type": "message", "role": "assistant", "content": [block],
                "stop_reason": "tool_use" if turn.tools else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 4, "cache_creation_input_tokens": 812, "cache_read_input_tokens": 24316,
                          "output_tokens": 96 + 7 * n, "service_tier": "standard"},
            }
            rec["requestId"] = "req_011C" + self.ids.next("req")[:20]
            self.out.append(rec)
            if tool is not None:
                pending.append((block, tool, rec["uuid"]))
        for block, tool, source_uuid in pending:
            self.tool_result(block, tool, source_uuid)

    def tool_input(self, tool: ToolUse) -> dict:
        if tool.kind == "bash":
            return {"command": tool.target, "description": _describe(tool.target)}
        if tool.kind == "read":
            return {"file_path": tool.target}
        if tool.kind == "edit":
            return {"file_path": tool.target, "old_string": tool.old, "new_string": tool.new, "replace_all": False}
        if tool.kind == "grep":
            return {"pattern": tool.target, "path": tool.path, "output_mode": "content", "-n": True}
        if tool.kind == "write":
            return {"file_path": tool.target, "content": tool.new}
        assert tool.subagent is not None
        return {"description": tool.subagent.description, "prompt": tool.target, "subagent_type": "general-purpose"}

    def tool_result(self, block: dict, tool: ToolUse, source_uuid: str) -> None:
        rec = self.envelope("user", 3 if tool.kind != "task" else 240)
        content, result = self.result_of(tool, rec)
        rec["message"] = {"role": "user", "content": [
            {"tool_use_id": block["id"], "type": "tool_result", "content": content, "is_error": tool.error}]}
        rec["toolUseResult"] = result
        rec["sourceToolAssistantUUID"] = source_uuid
        self.out.append(rec)

    def result_of(self, tool: ToolUse, rec: dict) -> tuple[Any, Any]:
        if tool.kind == "bash":
            if tool.error:
                return f"Exit code 1\n{tool.output}", f"Error: Exit code 1\n{tool.output}"
            return tool.output, {"stdout": tool.output, "stderr": "", "interrupted": False, "isImage": False,
                                 "noOutputExpected": False}
        if tool.kind == "read":
            lines = tool.output.split("\n")
            numbered = "\n".join(f"{i:>6}→{line}" for i, line in enumerate(lines, 1))
            return numbered, {"type": "text", "file": {"filePath": tool.target, "content": tool.output,
                                                       "numLines": len(lines), "startLine": 1, "totalLines": len(lines)}}
        if tool.kind == "edit":
            return (f"The file {tool.target} has been updated successfully.",
                    {"filePath": tool.target, "oldString": tool.old, "newString": tool.new, "originalFile": None,
                     "structuredPatch": [], "userModified": False, "replaceAll": False})
        if tool.kind == "grep":
            n = len([x for x in tool.output.split("\n") if x])
            return tool.output or "No matches found", {"mode": "content", "numFiles": 0, "filenames": [],
                                                        "content": tool.output, "numLines": n}
        if tool.kind == "write":
            return (f"File created successfully at: {tool.target}",
                    {"type": "create", "filePath": tool.target, "content": tool.new, "structuredPatch": []})
        assert tool.subagent is not None
        agent_id = "a" + self.ids.next("agent")[:16]
        # The subagent ran while the parent waited for this result.
        self.subagents.append((tool.subagent, agent_id, self.clock.now - timedelta(seconds=235)))
        return ([{"type": "text", "text": tool.output}],
                {"status": "completed", "prompt": tool.target, "agentId": agent_id,
                 "content": [{"type": "text", "text": tool.output}], "totalDurationMs": 231877,
                 "totalTokens": 41210, "totalToolUseCount": len([t for tt in tool.subagent.turns for t in tt.tools])})


def _describe(command: str) -> str:
    first = command.split("&&")[0].split("|")[0].strip()
    return "Run " + (first if len(first) < 60 else first[:57] + "...")

"""Codex CLI rollouts (envelope format, 0.12x-0.13x): ``sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``
with ``session_meta``, ``turn_context``, ``response_item`` (messages, reasoning summaries,
``exec_command`` calls, ``apply_patch`` custom tool calls) and their ``event_msg`` twins."""

from __future__ import annotations

import json
from pathlib import Path

from bench.quality.ranking.authoring.model import Clock, Ids, Script, ToolUse, Turn

CLI_VERSION = "0.128.0"
MODEL = "gpt-5.2-codex"


def write_codex(script: Script, root: Path) -> list[Path]:
    start = script.start_time()
    folder = root / "codex" / "sessions" / start.strftime("%Y/%m/%d")
    path = folder / f"rollout-{start.strftime('%Y-%m-%dT%H-%M-%S')}-{script.session_id}.jsonl"
    records = _Rollout(script).records()
    folder.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
    return [path]


class _Rollout:
    def __init__(self, script: Script):
        self.script = script
        self.clock = Clock(script.start_time())
        self.ids = Ids(script.session_id)
        self.out: list[dict] = []
        self.turn_id = ""

    def emit(self, kind: str, payload: dict, seconds: float = 0.0) -> None:
        self.out.append({"timestamp": Clock.iso(self.clock.tick(seconds)), "type": kind, "payload": payload})

    def records(self) -> list[dict]:
        s = self.script
        self.emit("session_meta", {
            "id": s.session_id, "timestamp": Clock.iso(self.clock.now), "cwd": s.cwd, "originator": "codex_cli_rs",
            "cli_version": CLI_VERSION, "source": "cli", "model_provider": "openai",
            "base_instructions": {"text": "You are Codex, a coding agent based on GPT-5. You and the user share the same workspace and collaborate to achieve the user's goals."},
            "git": {"commit_hash": self.ids.next("commit")[:40], "branch": s.git_branch,
                    "repository_url": f"git@github.com:example/{s.cwd.rstrip('/').rsplit('/', 1)[-1]}.git"},
        })
        self.emit("response_item", {"type": "message", "role": "developer", "content": [{"type": "input_text", "text":
                  "<permissions instructions>\nFilesystem sandboxing: workspace-write. Approval policy: on-request.\n</permissions instructions>"}]}, 0.004)
        self.emit("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text":
                  f"<environment_context>\n  <cwd>{s.cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>"}]})
        for i, turn in enumerate(s.turns):
            if turn.role == "user":
                self.user_turn(turn, first=(i == 0))
            else:
                self.assistant_turn(turn)
        if self.turn_id:
            self.emit("event_msg", {"type": "task_complete", "turn_id": self.turn_id}, 0.01)
        return self.out

    def user_turn(self, turn: Turn, first: bool) -> None:
        if self.turn_id:
            self.emit("event_msg", {"type": "task_complete", "turn_id": self.turn_id}, 0.01)
        self.turn_id = self.ids.uuid()
        self.emit("event_msg", {"type": "task_started", "turn_id": self.turn_id, "model_context_window": 258400},
                  turn.gap or (3 if first else 80))
        self.emit("turn_context", {"turn_id": self.turn_id, "cwd": self.script.cwd, "approval_policy": "on-request",
                                   "sandbox_policy": {"type": "workspace-write", "network_access": False},
                                   "model": self.script.model or MODEL, "effort": "medium", "summary": "auto"})
        self.emit("response_item", {"type": "message", "role": "user",
                                    "content": [{"type": "input_text", "text": turn.text}]}, 0.01)
        self.emit("event_msg", {"type": "user_message", "message": turn.text, "images": [], "local_images": [],
                                "text_elements": []})

    def assistant_turn(self, turn: Turn) -> None:
        first = True
        if turn.thinking:
            self.emit("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": turn.thinking}],
                                        "content": None, "encrypted_content": "gAAAAAB" + self.ids.next("enc") * 4},
                      turn.gap or 5)
            self.emit("event_msg", {"type": "agent_reasoning", "text": turn.thinking})
            first = False
        for tool in turn.tools:
            self.tool_call(tool, (turn.gap or 4) if first else 2)
            first = False
        if turn.text:
            self.emit("event_msg", {"type": "agent_message", "message": turn.text, "phase": "final_answer"},
                      (turn.gap or 6) if first else 3)
            self.emit("response_item", {"type": "message", "role": "assistant",
                                        "content": [{"type": "output_text", "text": turn.text}], "phase": "final_answer"})
        self.emit("event_msg", {"type": "token_count", "info": {"total_token_usage": {
            "input_tokens": 18000 + 900 * len(self.out), "cached_input_tokens": 16000, "output_tokens": 240,
            "reasoning_output_tokens": 64, "total_tokens": 18240 + 900 * len(self.out)}}})

    def tool_call(self, tool: ToolUse, seconds: float) -> None:
        call_id = "call_" + self.ids.next("call")[:24]
        if tool.kind in ("edit", "write"):
            patch = _patch(tool)
            self.emit("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                        "name": "apply_patch", "input": patch}, seconds)
            letter = "M" if tool.kind == "edit" else "A"
            out = {"output": f"Success. Updated the following files:\n{letter} {tool.target}\n",
                   "metadata": {"exit_code": 0, "duration_seconds": 0.0}}
            self.emit("response_item", {"type": "custom_tool_call_output", "call_id": call_id,
                                        "output": json.dumps(out)}, 0.2)
            return
        if tool.kind == "bash":
            cmd = tool.target
        elif tool.kind == "read":
            cmd = f"sed -n '1,200p' {tool.target}"
        elif tool.kind == "grep":
            cmd = f'rg -n "{tool.target}" {tool.path}'
        else:
            raise ValueError(f"Codex scripts cannot use a {tool.kind!r} tool")
        args = {"cmd": cmd, "workdir": self.script.cwd, "yield_time_ms": 10000}
        self.emit("response_item", {"type": "function_call", "name": "exec_command", "arguments": json.dumps(args),
                                    "call_id": call_id}, seconds)
        code = 1 if tool.error else 0
        output = (f"Chunk ID: {self.ids.next('chunk')[:6]}\nWall time: 0.{len(tool.output) % 9 + 1}00 seconds\n"
                  f"Process exited with code {code}\nOriginal token count: {len(tool.output) // 4}\nOutput:\n{tool.output}")
        self.emit("response_item", {"type": "function_call_output", "call_id": call_id, "output": output}, 1.5)


def _patch(tool: ToolUse) -> str:
    if tool.kind == "write":
        body = "\n".join("+" + line for line in tool.new.split("\n"))
        return f"*** Begin Patch\n*** Add File: {tool.target}\n{body}\n*** End Patch\n"
    old = "\n".join("-" + line for line in tool.old.split("\n"))
    new = "\n".join("+" + line for line in tool.new.split("\n"))
    return f"*** Begin Patch\n*** Update File: {tool.target}\n@@\n{old}\n{new}\n*** End Patch\n"

"""Pi coding agent v3 sessions: ``sessions/--<cwd>--/<time>_<id>.jsonl``, a header, then a
tree of entries (``id``/``parentId``) whose messages carry ``toolCall`` blocks and
``toolResult`` messages."""

from __future__ import annotations

import json
from pathlib import Path

from bench.quality.ranking.authoring.model import Clock, Ids, Script, ToolUse, Turn

PROVIDER = "anthropic"
MODEL = "claude-sonnet-4-5"


def folder_name(cwd: str) -> str:
    return "--" + cwd.strip("/").replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def write_pi(script: Script, root: Path) -> list[Path]:
    start = script.start_time()
    stamp = Clock.iso(start).replace(":", "-").replace(".", "-")
    path = root / "pi" / "sessions" / folder_name(script.cwd) / f"{stamp}_{script.session_id}.jsonl"
    records = _Session(script).records()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
    return [path]


class _Session:
    def __init__(self, script: Script):
        self.script = script
        self.clock = Clock(script.start_time())
        self.ids = Ids(script.session_id)
        self.parent: str | None = None
        self.out: list[dict] = []

    def entry(self, kind: str, seconds: float, **fields) -> dict:
        entry_id = self.ids.next("entry")[:8]
        rec = {"type": kind, "id": entry_id, "parentId": self.parent, "timestamp": Clock.iso(self.clock.tick(seconds))}
        rec.update(fields)
        self.parent = entry_id
        self.out.append(rec)
        return rec

    def ms(self) -> int:
        return int(self.clock.now.timestamp() * 1000)

    def records(self) -> list[dict]:
        s = self.script
        self.out.append({"type": "session", "version": 3, "id": s.session_id, "timestamp": Clock.iso(self.clock.now), "cwd": s.cwd})
        if s.title:
            self.entry("session_info", 0, name=s.title)
        self.entry("model_change", 0.004, provider=PROVIDER, modelId=s.model or MODEL)
        self.entry("thinking_level_change", 0, thinkingLevel="medium")
        for i, turn in enumerate(s.turns):
            if turn.role == "user":
                rec = self.entry("message", turn.gap or (2 if i == 0 else 70), message={})
                rec["message"] = {"role": "user", "content": [{"type": "text", "text": turn.text}], "timestamp": self.ms()}
            else:
                self.assistant_turn(turn)
        return self.out

    def assistant_turn(self, turn: Turn) -> None:
        content: list[dict] = []
        if turn.thinking:
            content.append({"type": "thinking", "thinking": turn.thinking, "thinkingSignature": "Eq" + self.ids.next("sig")})
        if turn.text:
            content.append({"type": "text", "text": turn.text})
        calls: list[tuple[str, ToolUse]] = []
        for tool in turn.tools:
            call_id = "toolu_01" + self.ids.next("call")[:22]
            name, args = _call(tool)
            content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": args})
            calls.append((call_id, tool))
        rec = self.entry("message", turn.gap or 7, message={})
        rec["message"] = {
            "role": "assistant", "content": content, "api": "anthropic-messages", "provider": PROVIDER,
            "model": self.script.model or MODEL,
            "usage": {"input": 6, "output": 180 + 11 * len(content), "cacheRead": 21000, "cacheWrite": 640,
                      "totalTokens": 21826, "cost": {"input": 0.00002, "output": 0.0027, "cacheRead": 0.0063,
                                                     "cacheWrite": 0.0024, "total": 0.01142}},
            "stopReason": "toolUse" if calls else "stop", "timestamp": self.ms(),
        }
        for call_id, tool in calls:
            rec = self.entry("message", 2, message={})
            name, _ = _call(tool)
            rec["message"] = {"role": "toolResult", "toolCallId": call_id, "toolName": name,
                              "content": [{"type": "text", "text": _result_text(tool)}], "isError": tool.error,
                              "timestamp": self.ms()}


def _call(tool: ToolUse) -> tuple[str, dict]:
    if tool.kind == "bash":
        return "bash", {"command": tool.target}
    if tool.kind == "read":
        return "read", {"path": tool.target}
    if tool.kind == "edit":
        return "edit", {"path": tool.target, "oldText": tool.old, "newText": tool.new}
    if tool.kind == "write":
        return "write", {"path": tool.target, "content": tool.new}
    if tool.kind == "grep":
        return "grep", {"pattern": tool.target, "path": tool.path}
    raise ValueError(f"Pi scripts cannot use a {tool.kind!r} tool")


def _result_text(tool: ToolUse) -> str:
    if tool.kind == "edit":
        return f"Successfully replaced text in {tool.target}."
    if tool.kind == "write":
        return f"Successfully wrote {len(tool.new.encode())} bytes to {tool.target}"
    if tool.kind == "bash" and tool.error:
        return f"{tool.output}\n\nCommand exited with code 1"
    return tool.output

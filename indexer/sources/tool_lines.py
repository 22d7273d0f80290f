"""A tool call as one searchable line: ``[Tool] <what it touched>``.

The line is what search finds and what a transcript shows before the arguments are expanded,
so it carries every argument a person would search for: a Grep's pattern *and* its path, a Task's
agent type, description and prompt, a Bash command and its description.
"""

from __future__ import annotations

import json
import re
from typing import Any

from indexer.sources.fields import scalar_text

LINE_LIMIT = 500
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.MULTILINE)
# The argument a line leads with, the first one present in this order.
_LEADING_KEYS = (
    "command",
    "cmd",
    "pattern",
    "file_path",
    "filePath",  # opencode
    "absolute_path",  # Gemini CLI, Qwen Code
    "notebook_path",
    "url",
    "query",
    "skill",
    "scriptPath",  # a Workflow run's script
    "prompt",
    "message",
    "input",
    "path",
    "target",
)
# Arguments that name who does the work (Claude Task/Agent, Codex spawn_agent).
_AGENT_KEYS = ("subagent_type", "agent_type", "agent_role")
# Arguments added after the leading one when present, as "<label> <value>".
_FOLLOWING_KEYS = (
    ("path", "in"),
    ("glob", "glob"),
    ("args", ""),
    ("prompt", "—"),
    ("query", "—"),
)


def describe_tool_call(name: str, args: Any) -> str:
    """``[Tool] <what it touched>``: the command, path, pattern, URL, prompt or skill."""
    target = tool_target(args)
    return f"[{name}] {target}" if target else f"[{name}] (no arguments)"


def tool_target(args: Any, depth: int = 0) -> str:
    """What a call's arguments touched, on one line. ``args`` may be any JSON value."""
    if isinstance(args, str):
        stripped = args.strip()
        if stripped.startswith("{") and depth < 2:
            try:
                return tool_target(json.loads(stripped), depth + 1)
            except (ValueError, RecursionError):
                pass
        return _patch_or_line(stripped)
    if isinstance(args, list):
        return _list_text(args)
    if not isinstance(args, dict) or not args:
        return scalar_text(args)
    return _dict_target(args, depth)


def _dict_target(args: dict, depth: int) -> str:
    """A dict of arguments on one line: its lead and following arguments, else an unknown tool's values."""
    pieces, used, description = _lead_pieces(args, depth)
    _add_following(pieces, used, args, depth)
    if description and "description" not in used:
        pieces.append(f"# {description}")
    if pieces:
        return _one_line(" ".join(p for p in pieces if p))
    return _unknown_tool_line(args)


def _lead_pieces(args: dict, depth: int) -> tuple[list[str], set[str], str]:
    """The line's start ("(agent) description: lead"), the keys it used, and the description,
    which the caller appends as ``# description`` when the start did not use it."""
    pieces: list[str] = []
    used: set[str] = set()
    _, agent = _first_present(args, _AGENT_KEYS, depth)
    if agent:
        pieces.append(f"({agent})")
    lead_key, lead = _first_present(args, _LEADING_KEYS, depth)
    description = _arg_text(args, "description", depth)
    # An agent call reads "(type) description: prompt"; any other tool leads with its target.
    if description and (agent or lead_key in (None, "prompt", "message")):
        pieces.append(description + (":" if lead_key else ""))
        used.add("description")
    if lead_key:
        pieces.append(lead)
        used.add(lead_key)
    return pieces, used, description


def _add_following(pieces: list[str], used: set[str], args: dict, depth: int) -> None:
    """Appends the following keys' values the line does not already say, marking them used."""
    for key, label in _FOLLOWING_KEYS:
        value = _arg_text(args, key, depth) if key not in used else ""
        if value and value not in " ".join(pieces):
            pieces.append(f"{label} {value}" if label else value)
            used.add(key)


def _unknown_tool_line(args: dict) -> str:
    """An unknown tool: its first plain arguments, so the line still says something."""
    plain = [f"{k}={shown}" for k, v in args.items() if (shown := scalar_text(v))]
    if plain:
        return _one_line(" ".join(plain), 300)
    return _one_line(_json_text(args), 300)


def _first_present(args: dict, keys: tuple[str, ...], depth: int) -> tuple[str | None, str]:
    """The first of ``keys`` the call gives some text for, and that text."""
    for key in keys:
        if key in args and (text := _value_text(args[key], depth)):
            return key, text
    return None, ""


def _arg_text(args: dict, key: str, depth: int) -> str:
    """One argument's text; empty when the call does not have it."""
    return _value_text(args[key], depth) if key in args else ""


def _value_text(value: Any, depth: int) -> str:
    if isinstance(value, str):
        return _patch_or_line(value.strip())
    if isinstance(value, list):
        return _list_text(value)
    if isinstance(value, dict) and depth < 2:
        return _dict_target(value, depth + 1) if value else ""
    return scalar_text(value)


def _list_text(args: list) -> str:
    if args and all(isinstance(a, str) for a in args):
        # Codex shell: ["bash", "-lc", "<script>"]
        if len(args) >= 3 and args[1] in ("-lc", "-c"):
            return _one_line(args[2])
        return _one_line(" ".join(args))
    return _one_line(" ".join(t for a in args if (t := scalar_text(a))) or _json_text(args), 300)


def _patch_or_line(value: str) -> str:
    files = _PATCH_FILE.findall(value)
    if files:
        return "apply patch: " + ", ".join(f.strip() for f in files)
    return _one_line(value)


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return ""


def _one_line(text: str, limit: int = LINE_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"

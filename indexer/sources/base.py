"""What every agent parser shares: the parsed-record types, a forgiving JSON-lines reader and
the rules for turning a tool call into one searchable line."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator

try:  # orjson is a declared dependency; the fallback keeps a broken install usable.
    import orjson

    def _loads(b: bytes) -> Any:
        return orjson.loads(b)

except ImportError:  # pragma: no cover

    def _loads(b: bytes) -> Any:
        return json.loads(b)


TOOL_RESULT_HEAD = 2000
TOOL_RESULT_TAIL = 800
TEXT_LIMIT = 200_000  # one message's stored text; longer text is cut head + tail

Report = Callable[[str], None]


@dataclass(slots=True)
class ParsedMessage:
    role: str
    kind: str
    text: str
    dedup: str
    tool_name: str | None = None
    ts: float | None = None
    detail: str | None = None
    indexed: bool = True


@dataclass(slots=True)
class SessionMeta:
    """Session facts a parser learns while reading; merged into the ``sessions`` row."""

    session_id: str | None = None
    parent_session_id: str | None = None
    project_path: str | None = None
    git_branch: str | None = None
    model: str | None = None
    title: str | None = None
    title_rank: int = 0  # higher wins: 1 first prompt, 2 summary, 3 ai title, 4 user-given name

    def offer_title(self, title: str | None, rank: int) -> None:
        if title and rank > self.title_rank:
            self.title = one_line(title, 200)
            self.title_rank = rank


@dataclass(slots=True)
class ParseOutput:
    messages: list[ParsedMessage] = field(default_factory=list)
    bad_lines: int = 0
    first_bad_line: int | None = None  # 1-based line number within the file, when known


TITLE_FIRST_PROMPT, TITLE_SUMMARY, TITLE_AI, TITLE_NAMED = 1, 2, 3, 4


def dedup_key(*parts: object) -> str:
    return "\x1f".join("" if p is None else str(p) for p in parts)


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).hexdigest()


def one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cut_middle(text: str, head: int, tail: int) -> str:
    """Keep the head and the tail of a long text, on character boundaries, marking the cut."""
    if len(text) <= head + tail + 64:
        return text
    omitted = len(text) - head - tail
    return f"{text[:head]}\n…[{omitted:,} characters omitted]…\n{text[-tail:]}"


def clip_tool_output(text: str) -> str:
    """A tool result as stored: head and tail only. It is never indexed, so base64 in it does
    no harm beyond its share of the 2,800 characters kept."""
    return cut_middle(text, TOOL_RESULT_HEAD, TOOL_RESULT_TAIL)


def parse_iso(value: Any) -> float | None:
    """ISO 8601 string (``Z`` or offset) or epoch number (s or ms) to epoch seconds."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        v = float(value)
        return v / 1000.0 if v > 1e11 else v
    if not isinstance(value, str):
        return None
    s = value.strip()
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        return None
    if dt.tzinfo is None:
        from datetime import timezone

        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


_DATA_URL = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=\s]{64,}")
# The lookbehind makes each run of base64 characters be tried once, not from every offset.
_LONG_BASE64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{400,}={0,2}")


def strip_binary(text: str) -> str:
    """Remove inline base64 payloads: they bloat the index and match random trigrams."""
    if len(text) < 400:
        return text
    text = _DATA_URL.sub("[base64 data]", text)
    return _LONG_BASE64.sub("[base64 data]", text)


def iter_json_lines(data: bytes, out: ParseOutput, first_line_no: int = 1) -> Iterator[tuple[int, Any]]:
    """Yield (line number, object) for each JSON value in complete lines of ``data``.

    Forgiving: non-UTF-8 bytes are replaced, two objects on one line are both read, and a
    line that is not JSON is counted in ``out`` (the caller reports it once per file).
    """
    line_no = first_line_no - 1
    for raw in data.split(b"\n"):
        line_no += 1
        stripped = raw.strip()
        if not stripped:
            continue
        try:
            yield line_no, _loads(stripped)
            continue
        except ValueError:
            pass
        text = stripped.decode("utf-8", "replace")
        values, complete = _decode_concatenated(text)
        for v in values:
            yield line_no, v
        if not complete:
            out.bad_lines += 1
            if out.first_bad_line is None:
                out.first_bad_line = line_no


_DECODER = json.JSONDecoder()


def _decode_concatenated(text: str) -> tuple[list[Any], bool]:
    """Decode ``{...}{...}`` (objects glued together on one line) or a line with bad bytes.

    Returns the values read and whether the whole line was understood.
    """
    values: list[Any] = []
    pos, n = 0, len(text)
    while pos < n:
        while pos < n and text[pos] in " \t\r":
            pos += 1
        if pos >= n:
            break
        try:
            value, pos = _DECODER.raw_decode(text, pos)
        except ValueError:
            return values, False
        values.append(value)
    return values, True


def load_whole_json(data: bytes) -> Any | None:
    """A pretty-printed JSON document (Codex TS era, or a hand-saved log), else None."""
    try:
        return _loads(data)
    except ValueError:
        try:
            return json.loads(data.decode("utf-8", "replace"))
        except ValueError:
            return None


def flatten_content(content: Any) -> str:
    """Text of a string-or-list content field; images and binary become short markers."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return str(content)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
            continue
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype in ("text", "input_text", "output_text"):
            parts.append(str(block.get("text", "")))
        elif btype in ("image", "input_image", "image_url"):
            parts.append("[image]")
        elif btype == "tool_reference":
            parts.append(f"[tool reference: {block.get('tool_name') or block.get('name') or ''}]")
        elif "text" in block and isinstance(block["text"], str):
            parts.append(block["text"])
    return "\n".join(p for p in parts if p)


_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.MULTILINE)
_TARGET_KEYS = (
    "command",
    "cmd",
    "file_path",
    "path",
    "notebook_path",
    "pattern",
    "url",
    "query",
    "skill",
    "prompt",
    "description",
    "subagent_type",
    "message",
    "input",
)


def describe_tool_call(name: str, args: Any) -> str:
    """``[Tool] <what it touched>``: the command, path, pattern, URL, prompt or skill."""
    target = tool_target(args)
    return f"[{name}] {target}" if target else f"[{name}] (no arguments)"


def tool_target(args: Any) -> str:
    if isinstance(args, str):
        stripped = args.strip()
        if stripped.startswith("{"):
            try:
                return tool_target(json.loads(stripped))
            except ValueError:
                pass
        files = _PATCH_FILE.findall(args)
        if files:
            return "apply patch: " + ", ".join(f.strip() for f in files)
        return one_line(stripped, 500)
    if isinstance(args, list):
        if args and all(isinstance(a, str) for a in args):
            # Codex shell: ["bash", "-lc", "<script>"]
            if len(args) >= 3 and args[1] in ("-lc", "-c"):
                return one_line(args[2], 500)
            return one_line(" ".join(args), 500)
        return one_line(json.dumps(args, ensure_ascii=False), 300)
    if not isinstance(args, dict) or not args:
        return ""
    pieces: list[str] = []
    for key in _TARGET_KEYS:
        value = args.get(key)
        if value in (None, "", [], {}):
            continue
        if key == "subagent_type" and pieces:
            pieces.insert(0, f"({value})")
            continue
        pieces.append(tool_target(value) if not isinstance(value, str) else _patch_or_line(value))
        if key not in ("pattern", "description"):
            break
    if args.get("path") and args.get("pattern") and args["path"] not in " ".join(pieces):
        pieces.append(f"in {args['path']}")
    if pieces:
        return one_line(" ".join(p for p in pieces if p), 500)
    # Unknown tool: its first string arguments, so the line still says something.
    strings = [f"{k}={v}" for k, v in args.items() if isinstance(v, (str, int, float)) and v != ""]
    if strings:
        return one_line(" ".join(strings), 300)
    return one_line(json.dumps(args, ensure_ascii=False), 300)


def _patch_or_line(value: str) -> str:
    files = _PATCH_FILE.findall(value)
    if files:
        return "apply patch: " + ", ".join(f.strip() for f in files)
    return one_line(value, 500)


def to_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        return str(value)


def project_name_of(path: str | None) -> str | None:
    if not path:
        return None
    name = Path(path.rstrip("/\\")).name
    return name or path

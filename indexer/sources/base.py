"""What every agent parser shares: the parsed-record types, title ranks, a forgiving JSON-lines
reader and the flattening of string-or-list content."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from indexer.sources.fields import as_str, plausible_ts, scalar_text
from indexer.models import TokenUsage
from indexer.text.clip import cut_middle
from indexer.tool_args import to_json  # noqa: F401 - the parsers' name for it

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
    mark: str | None = None  # shown beside the message: "abandoned branch", "retracted", ...
    # Where in the bytes given to the parser its record is (start, end), set by
    # ``iter_json_lines``: tool output can then be kept as a reference into the log
    # (``indexer.ingest.log_refs``). None: not known (nothing is lost, the text is stored).
    span: tuple[int, int] | None = None


# Title sources, weakest first: a higher rank replaces a lower one.
TITLE_COMMAND, TITLE_FIRST_PROMPT, TITLE_SUMMARY, TITLE_AI, TITLE_NAMED = 1, 2, 3, 4, 5
_SLASH_COMMAND = re.compile(r"^/[A-Za-z][\w:.-]*(\s|$)")


def is_slash_command(text: str) -> bool:
    """``/clear``, ``/mode plan``: a command typed to the agent, not a prompt."""
    return bool(_SLASH_COMMAND.match(text.lstrip()))


@dataclass(slots=True)
class SessionMeta:
    """Session facts a parser learns while reading; merged into the ``sessions`` row."""

    session_id: str | None = None
    parent_session_id: str | None = None  # the session that spawned this one (a subagent)
    branched_from: str | None = None  # the user's own session this one branched or forked from
    project_path: str | None = None
    resume_cwd: str | None = None  # where to resume from, when the session moved (relocated)
    git_branch: str | None = None
    model: str | None = None
    title: str | None = None
    title_rank: int = 0  # see TITLE_*: 0 none yet
    tokens: TokenUsage | None = None  # the file's token totals (``indexer.sources.token_usage``)

    def offer_title(self, title: str | None, rank: int, *, latest_wins: bool = False) -> None:
        """Take ``title`` if it outranks the current one. ``latest_wins`` for names a user or
        an agent can change (``/rename``, a new AI title): the newest of that rank wins."""
        if not isinstance(title, str) or not title.strip():
            return
        if rank > self.title_rank or (latest_wins and rank == self.title_rank):
            self.title = one_line(title, 200)
            self.title_rank = rank

    def offer_prompt_title(self, prompt: str) -> None:
        """A typed prompt as the fallback title; a slash command (``/clear``) only until a
        real prompt comes."""
        rank = TITLE_COMMAND if is_slash_command(prompt) else TITLE_FIRST_PROMPT
        self.offer_title(prompt, rank)


@dataclass(slots=True)
class ParseOutput:
    messages: list[ParsedMessage] = field(default_factory=list)
    bad_lines: int = 0
    first_bad_line: int | None = None  # 1-based line number within the file, when known
    non_utf8_lines: int = 0  # lines read with replacement characters for bytes not UTF-8
    first_non_utf8_line: int | None = None
    # The new lines change what earlier ones mean (a Pi branch switch, a retraction): read the
    # whole file again rather than append.
    restart: bool = False


NAME_MARK = "session name"


def name_message(agent: str, session_id: str | None, title: str | None, ts: float | None = None) -> ParsedMessage | None:
    """A name the person gave the session (Claude ``/rename``, a Pi session name, a Codex thread
    name) as a line of its own: the title shows it, this makes it searchable. One per name."""
    if not isinstance(title, str) or not title.strip():
        return None
    text = one_line(title, 200)
    return ParsedMessage("system", "text", f"Session named: {text}", dedup_key(agent, session_id, "name", digest(text)),
                         ts=ts, mark=NAME_MARK)


def dedup_key(*parts: object) -> str:
    return "\x1f".join("" if p is None else str(p) for p in parts)


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).hexdigest()


def one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clip_tool_output(text: str) -> str:
    """A tool result as stored: head and tail only. It is never indexed, so base64 in it does
    no harm beyond its share of the 2,800 characters kept."""
    return cut_middle(text, TOOL_RESULT_HEAD, TOOL_RESULT_TAIL)


def parse_iso(value: Any) -> float | None:
    """ISO 8601 string (``Z`` or offset) or epoch number (s or ms) to epoch seconds; None for
    anything else, or for a time no log can hold (before 1970, after 3000)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            v = float(value)
        except OverflowError:
            return None
        return plausible_ts(v / 1000.0 if abs(v) > 1e11 else v)
    if not isinstance(value, str) or not value.strip():
        return None
    s = value.strip()
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(s)
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        return plausible_ts(dt.timestamp())
    except (ValueError, OverflowError):
        return None


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

    Forgiving: non-UTF-8 bytes are replaced (and counted in ``out``), two objects on one line
    are both read, a pretty-printed record spread over several lines is read as one (at the
    line it starts on), and a line that is not JSON is counted in ``out`` (the caller reports
    it once per file).
    """
    lines = data.split(b"\n")
    i, n, line_start = 0, len(lines), 0
    while i < n:
        raw = lines[i]
        line_no = first_line_no + i
        i += 1
        span = (line_start, line_start + len(raw))
        line_start += len(raw) + 1
        stripped = raw.strip()
        if not stripped:
            continue
        try:
            record = _loads(stripped)
        except ValueError:
            pass
        else:
            before = len(out.messages)
            yield line_no, record
            _mark_span(out, before, span)
            continue
        text = _decoded(stripped, line_no, out)
        values, complete = _decode_concatenated(text)
        if not complete and not values and stripped[:1] in (b"{", b"["):
            record, used = _pretty_record(lines, i - 1, out, line_no)
            if used:
                yield line_no, record  # no span: the record is not one line
                line_start += sum(len(line) + 1 for line in lines[i : i + used - 1])
                i += used - 1
                continue
        for v in values:
            before = len(out.messages)
            yield line_no, v
            _mark_span(out, before, span)
        if not complete:
            out.bad_lines += 1
            if out.first_bad_line is None:
                out.first_bad_line = line_no


def _mark_span(out: ParseOutput, before: int, span: tuple[int, int]) -> None:
    """The messages a record just added came from ``span`` of the parser's bytes."""
    for message in out.messages[before:]:
        if message.span is None:
            message.span = span


PRETTY_MAX_LINES = 20_000  # a pretty-printed record longer than this is not looked for
PRETTY_MAX_TRIES = 64  # closing lines tried before a line is given up as not JSON


def _decoded(raw: bytes, line_no: int, out: ParseOutput) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        out.non_utf8_lines += 1
        if out.first_non_utf8_line is None:
            out.first_non_utf8_line = line_no
        return raw.decode("utf-8", "replace")


def _pretty_record(lines: list[bytes], start: int, out: ParseOutput, line_no: int) -> tuple[Any, int]:
    """A JSON value opened on ``lines[start]`` and closed on a later line that starts with
    ``}`` or ``]``: (the value, lines it spans), or (None, 0) when there is none."""
    end = min(len(lines), start + PRETTY_MAX_LINES)
    tries = 0
    for j in range(start + 1, end):
        if lines[j][:1] not in (b"}", b"]"):
            continue
        tries += 1
        if tries > PRETTY_MAX_TRIES:
            break
        chunk = b"\n".join(lines[start : j + 1])
        try:
            return _loads(chunk), j + 1 - start
        except ValueError:
            pass
        values, complete = _decode_concatenated(chunk.decode("utf-8", "replace"))
        if complete and len(values) == 1:
            if any(_has_bad_bytes(x) for x in lines[start + 1 : j + 1]):
                out.non_utf8_lines += 1
                if out.first_non_utf8_line is None:
                    out.first_non_utf8_line = line_no
            return values[0], j + 1 - start
    return None, 0


def _has_bad_bytes(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
        return False
    except UnicodeDecodeError:
        return True


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
        except (ValueError, RecursionError):  # RecursionError: nested thousands of levels deep
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
        except (ValueError, RecursionError):
            return None


def flatten_content(content: Any, *, images: bool = True) -> str:
    """Text of a string-or-list content field. Images become a short marker (with their URL
    when it is a web address, never base64), or nothing with ``images=False``: a title or a
    twin check wants the typed words only."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return scalar_text(content)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
            continue
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype in ("text", "input_text", "output_text"):
            parts.append(scalar_text(block.get("text")))
        elif btype in ("image", "input_image", "image_url", "localImage", "local_image"):
            if images:
                parts.append(_image_marker(block))
        elif btype == "tool_reference":
            name = as_str(block.get("tool_name")) or as_str(block.get("name"))
            parts.append(f"[tool reference: {name}]")
        elif isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "\n".join(p for p in parts if p)


def _image_marker(block: dict) -> str:
    url = block.get("image_url")
    if isinstance(url, dict):
        url = url.get("url")
    url = as_str(url) or as_str(block.get("url")) or as_str(block.get("path"))
    if url.startswith(("http://", "https://", "/", "file:")) and len(url) < 500:
        return f"[image: {url}]"
    return "[image]"


def project_name_of(path: str | None) -> str | None:
    if not path:
        return None
    name = Path(path.rstrip("/\\")).name
    return name or path

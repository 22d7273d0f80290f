"""The stdio wire of ``threadback mcp``: every request gets a JSON-RPC answer.

The SDK's stdio transport hands a line its parser refuses to the server as an exception, and
the server answers nothing: a lone surrogate escape (``"\\ud800"``, valid JSON, not valid
Unicode), nesting deeper than about 200 levels, a line cut in half. The client then waits
forever. Here each line meets the SDK's own parser first; a refused one is answered with a
JSON-RPC error carrying its id (when one can be read) and the reason, and never reaches the SDK.
Everything else is the SDK's ``stdio_server``, given these streams.
"""

from __future__ import annotations

import json
import os
from io import TextIOWrapper
from typing import Any, Literal

import anyio
import mcp_types
from mcp.server.stdio import stdio_server

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
_SHOWN_CHARS = 200  # of a parser's message, in an answer


class _Lines:
    """One text stream of whole lines, written by the SDK and by the checks below in turn."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.lock = anyio.Lock()

    async def write(self, text: str) -> None:
        async with self.lock:
            await self.stream.write(text)

    async def flush(self) -> None:
        async with self.lock:
            await self.stream.flush()

    async def answer(self, message: dict[str, Any]) -> None:
        async with self.lock:
            await self.stream.write(json.dumps(message) + "\n")
            await self.stream.flush()


class _CheckedLines:
    """The lines of stdin the SDK can parse; the others are answered here."""

    def __init__(self, stream: Any, out: _Lines) -> None:
        self.stream, self.out = stream, out

    def __aiter__(self) -> _CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self.stream.readline()
            if not line:
                raise StopAsyncIteration
            if not line.strip():
                continue
            error = refusal_of(line)
            if error is None:
                return line
            if error:
                await self.out.answer(error)


def refusal_of(line: str) -> dict[str, Any] | None | Literal[False]:
    """``None`` when the SDK reads ``line``; else the JSON-RPC error answering it, or ``False``
    for a refused notification (no id: JSON-RPC answers nothing)."""
    try:
        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValueError as exc:  # pydantic's ValidationError
        sdk_reason = str(exc).split("\n")[1].strip() if "\n" in str(exc) else str(exc)
    try:
        message = json.loads(line)
    except RecursionError:
        return _error(None, PARSE_ERROR, "Parse error: nested too deep to read")
    except ValueError as exc:
        return _error(None, PARSE_ERROR, f"Parse error: not JSON ({exc})")
    rid = message.get("id") if isinstance(message, dict) else None
    if isinstance(message, dict) and "id" not in message:
        return False
    if not isinstance(rid, (str, int)) or isinstance(rid, bool):
        rid = None
    return _error(rid, INVALID_REQUEST, "Invalid Request: " + _why(message, sdk_reason))


def _why(message: Any, sdk_reason: str) -> str:
    depth, surrogate = _shape(message)
    if surrogate is not None:
        return (f"it holds a lone surrogate escape (\\u{ord(surrogate):04x}), which is not valid "
                "Unicode; send the character itself or its full surrogate pair")
    if depth > 100:
        return f"it is nested {depth} levels deep; at most about 200 levels are read, and no tool takes more than a few"
    return sdk_reason[:_SHOWN_CHARS]


def _shape(value: Any) -> tuple[int, str | None]:
    """How deep ``value`` nests, and the first lone surrogate in any of its strings."""
    deepest, surrogate = 0, None
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            stack.extend((k, depth + 1) for k in item)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, str) and surrogate is None:
            surrogate = next((ch for ch in item if "\ud800" <= ch <= "\udfff"), None)
    return deepest, surrogate


def _error(rid: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def _claim_wire() -> tuple[Any, Any]:
    """The wire's own copies of stdin and stdout; fd 0 then reads nothing and fd 1 goes to
    stderr, so a stray print or a child process cannot corrupt the conversation (as the SDK's
    own transport does)."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return os.fdopen(wire_in, "rb"), os.fdopen(wire_out, "wb")


async def serve_stdio(lowlevel_server: Any) -> None:
    """Serve until stdin closes."""
    stdin, stdout = _claim_wire()
    out = _Lines(anyio.wrap_file(TextIOWrapper(stdout, encoding="utf-8")))
    lines = _CheckedLines(anyio.wrap_file(TextIOWrapper(stdin, encoding="utf-8", errors="replace")), out)
    # Not anyio AsyncFiles: stand-ins with the only calls stdio_server makes (async for; write, flush).
    async with stdio_server(lines, out) as (read_stream, write_stream):  # type: ignore[arg-type]
        await lowlevel_server.run(read_stream, write_stream, lowlevel_server.create_initialization_options())

"""What crosses the warm server's socket.

The server speaks first (``W``, once it has accepted the connection and checked the caller is
its own user): a caller that sent its descriptors to a server that never accepts would keep its
own stdout open in that socket's queue, and whoever reads its output would wait for ever. Then
the request, one message: ``TBW1``, its length, then NUL-separated fields (the key, when the
caller started, its working folder, umask, how each of its three standard streams encodes, its
``argv[0]``, the argument count, the arguments, then the environment as ``NAME=VALUE``), with
the caller's file descriptors 0, 1 and 2 attached (``SCM_RIGHTS``). Text is encoded as the
interpreter encodes file names (``os.fsencode``), so arguments that are not UTF-8 cross as they are.

The answer comes from the forked child: ``R`` and its pid when it is about to run (the caller
answers ``G``: a caller that gave up waiting never has a command run behind its back), then ``X``
and the exit code. A connection closed before ``R`` means "not here": the caller runs the
command itself."""

from __future__ import annotations

import os
from _struct import pack, unpack

MAGIC = b"TBW1"
HELLO, RUNNING, GO, EXITED = b"W", b"R", b"G", b"X"
MAX_REQUEST_BYTES = 4 << 20

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


class Request:
    """One command, as the caller would have run it."""

    __slots__ = ("key", "started", "cwd", "umask", "streams", "argv0", "argv", "env")

    def __init__(self, key: str, started: float, cwd: str, umask: int, streams: Sequence[tuple[str, str, bool]],
                 argv0: str, argv: Sequence[str], env: Mapping[str, str]) -> None:
        self.key, self.started, self.cwd, self.umask = key, started, cwd, umask
        self.streams, self.argv0, self.argv, self.env = list(streams), argv0, list(argv), dict(env)


def encode(request: Request) -> bytes:
    fields = [request.key, repr(request.started), request.cwd, str(request.umask)]
    for encoding, errors, line_buffering in request.streams:
        fields += [encoding, errors, "1" if line_buffering else "0"]
    fields += [request.argv0, str(len(request.argv)), *request.argv]
    fields += [f"{name}={value}" for name, value in request.env.items()]
    body = b"\0".join(os.fsencode(field) for field in fields)
    return MAGIC + pack("<I", len(body)) + body


def body_length(header: bytes) -> int | None:
    """The body's length from the first 8 bytes, or None if they are not a request."""
    if len(header) != 8 or header[:4] != MAGIC:
        return None
    (length,) = unpack("<I", header[4:])
    return length if length <= MAX_REQUEST_BYTES else None


def decode(body: bytes) -> Request | None:
    """The request, or None if the body is not one."""
    fields = [os.fsdecode(field) for field in body.split(b"\0")]
    try:
        key, started, cwd, umask = fields[0], float(fields[1]), fields[2], int(fields[3])
        streams = [(fields[4 + 3 * i], fields[5 + 3 * i], fields[6 + 3 * i] == "1") for i in range(3)]
        argv0, count = fields[13], int(fields[14])
        argv = fields[15:15 + count]
        if len(argv) != count:
            return None
        env = dict(item.split("=", 1) for item in fields[15 + count:] if "=" in item)
    except (IndexError, ValueError):
        return None
    return Request(key, started, cwd, umask, streams, argv0, argv, env)


def exit_message(code: int) -> bytes:
    return EXITED + pack("<i", code)


def running_message(pid: int) -> bytes:
    return RUNNING + pack("<I", pid)


def read_number(data: bytes, signed: bool) -> int:
    return unpack("<i" if signed else "<I", data)[0]

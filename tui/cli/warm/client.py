"""Ask the warm server to run this command (``tui.cli.warm``).

Runs before anything else is imported, so it loads only C modules (``_socket``, ``_struct``)
and ``place``/``protocol``. Every way of not reaching the server (none running, a stale socket,
a server that does not answer within ``REPLY_SECONDS``, a request it declines, a closed
standard stream) returns None, and the caller runs the command itself: nothing has run yet.
Once the server's child says it is running, the command's output is already going to this
process's stdout and stderr; the client forwards Ctrl-C to it and returns its exit code."""

from __future__ import annotations

import os
import sys

from tui.cli.warm import place, protocol

REPLY_SECONDS = 3.0
WARM_VERBS = ("search", "hook")
LOST_CHILD = 70  # tui.cli.exits.INTERNAL, without importing it
INTERRUPTED = 130


def ask(argv: list[str], started: float) -> int | None:
    """The command's exit code, run by the warm server; None if it must run here."""
    if not any(verb in argv for verb in WARM_VERBS) or not place.enabled():
        return None
    streams = [(s.encoding, s.errors or "strict", bool(s.line_buffering)) if s is not None else None
               for s in (sys.stdin, sys.stdout, sys.stderr)]
    if None in streams:  # a stream the command was started without: the cold path copes
        return None
    folder = place.private_folder()
    if folder is None:
        return None
    try:
        cwd = os.getcwd()
    except OSError:
        return None
    umask = os.umask(0o022)
    os.umask(umask)
    server_key = place.key()
    request = protocol.Request(server_key, started, cwd, umask, streams, sys.argv[0], argv, os.environ)
    return _send(place.socket_path(folder, server_key), protocol.encode(request))


def _send(path: str, message: bytes) -> int | None:
    import _socket
    from _struct import pack

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(REPLY_SECONDS)
        sock.connect(path)
        if _receive(sock, 1) != protocol.HELLO:
            sock.close()
            return None
        sock.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, pack("3i", 0, 1, 2))])
        first = _receive(sock, 5)
        if first is None or first[:1] != protocol.RUNNING:
            return None
        sock.sendall(protocol.GO)
    except TimeoutError:
        sock.close()
        _forget_silent_server(path)
        return None
    except OSError:  # no server, a dead one's socket, a closed descriptor
        sock.close()
        return None
    sock.settimeout(None)
    try:
        return _wait(sock, protocol.read_number(first[1:], signed=False))
    finally:
        sock.close()


def _forget_silent_server(path: str) -> None:
    """A server that did not answer in time (stopped, stuck, or on a machine too busy to fork)
    loses its socket: the next command does not wait for it too, and a fresh server can start.
    The old one leaves at its next idle tick, when it finds its socket gone."""
    try:
        os.unlink(path)
    except OSError:
        pass


def _wait(sock, pid: int) -> int:
    interrupts = 0
    while True:
        try:
            answer = _receive(sock, 5)
        except KeyboardInterrupt:
            interrupts += 1
            if interrupts > 1:
                return INTERRUPTED
            try:
                os.kill(pid, 2)  # SIGINT: the command stops as it would under Ctrl-C
            except OSError:
                return INTERRUPTED
            continue
        except OSError:
            answer = None
        if answer is None or answer[:1] != protocol.EXITED:
            print("threadback: the warm server's worker ended without an exit code "
                  "(THREADBACK_WARM=0 runs commands without it)", file=sys.stderr)
            return LOST_CHILD
        return protocol.read_number(answer[1:], signed=True)


def _receive(sock, size: int) -> bytes | None:
    """Exactly ``size`` bytes, or None if the connection closed first."""
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data

"""The warm server: imports what ``search`` and the hooks need once, then forks a child per
request that runs the command as the caller would have (``tui.cli.warm``).

Started detached by ``spawn`` (its own session, stdin/stdout/stderr on /dev/null) as
``python -c spawn.BOOT repr(sys.path)``: the caller's interpreter and import path, so its key
(``place.key``) is the caller's. It listens on ``place.socket_path``, answers only its own user
(``SO_PEERCRED``), and exits when no request came for ``THREADBACK_WARM_IDLE`` seconds (600),
when its socket was removed or replaced, or when a file it imported changed (a reinstall or an
edit: the next caller runs cold and starts a fresh server).

The parent never opens the index or reads a config; each child starts from the imported
modules alone, with the caller's working folder, umask, environment, arguments and streams."""

from __future__ import annotations

import os
import sys

from tui.cli.warm import place, protocol

IDLE_SECONDS = 600.0
ACCEPT_TICK_SECONDS = 30.0
READ_SECONDS = 2.0
# What the plain search and hook lines import, loaded once before the first request; a module
# that is missing or fails to load is left to the child, which reports it as a cold run would.
PRELOAD = ("tui.cli.main", "tui.cli.index", "tui.cli.hook", "tui.cli.render", "tui.cli.output",
           "indexer.storable", "indexer.agents.hooks", "indexer.agents.context", "indexer.agents.recall",
           "indexer.agents.recall_cues", "indexer.agents.evidence", "indexer.agents.relevance",
           "indexer.memory.facts", "indexer.search.narrowing", "indexer.search.suggestions",
           "ruamel.yaml", "_json", "_pickle", "_strptime", "unicodedata", "pathlib", "datetime", "shlex")


def serve() -> None:
    """The server's life: bind, preload, answer until idle or stale."""
    import importlib
    import signal
    import socket
    import time

    folder = place.private_folder()
    if folder is None:
        return
    server_key = place.key()
    path = place.socket_path(folder, server_key)
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - see PRELOAD
            continue
    watched = _our_module_files()
    listener = _listen(socket, path)
    if listener is None:
        return
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    idle = float(os.environ.get("THREADBACK_WARM_IDLE") or IDLE_SECONDS)
    listener.settimeout(min(ACCEPT_TICK_SECONDS, idle))
    bound = os.stat(path).st_ino
    import gc

    gc.freeze()  # the children share these pages instead of copying them as the collector walks them
    last = time.monotonic()
    while True:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            if time.monotonic() - last >= idle or not _still_ours(path, bound):
                break
            continue
        except OSError:
            break
        last = time.monotonic()
        if not _unchanged(watched):
            conn.close()
            break
        _answer(conn, server_key, listener)
    listener.close()
    if _still_ours(path, bound):
        os.unlink(path)


def _listen(socket, path: str):
    """A listening socket at ``path``: bound under a temporary name, then renamed into place, so
    a caller never meets a half-made one and two servers starting at once leave one socket."""
    temporary = f"{path}.{os.getpid()}"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(temporary)
        listener.listen(64)
        os.rename(temporary, path)
    except OSError:
        listener.close()
        return None
    return listener


def _answer(conn, server_key: str, listener) -> None:
    """Read one request; fork a child for it when it is ours to run, else close (the caller
    then runs it itself)."""
    import socket

    fds: list[int] = []
    try:
        if not _same_user(socket, conn):
            return
        conn.settimeout(READ_SECONDS)
        conn.sendall(protocol.HELLO)
        request, fds = _read_request(socket, conn)
        if request is None or request.key != server_key or len(fds) != 3 or not _runs_here(request.argv):
            return
        pid = os.fork()
        if pid == 0:
            listener.close()  # a child that outlives the server must not hold its socket open
            _child(conn, request, fds)  # never returns
    except OSError:
        return
    finally:
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
        conn.close()


def _same_user(socket, conn) -> bool:
    from _struct import unpack

    credentials = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    _pid, uid, _gid = unpack("3i", credentials)
    return uid == os.getuid()


def _read_request(socket, conn):
    from _struct import calcsize

    fds: list[int] = []
    header, ancillary, _flags, _address = conn.recvmsg(8, socket.CMSG_SPACE(3 * calcsize("i")))
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds += [int.from_bytes(data[i:i + 4], sys.byteorder, signed=True) for i in range(0, len(data) - 3, 4)]
    length = protocol.body_length(header)
    if length is None:
        return None, fds
    body = b""
    while len(body) < length:
        chunk = conn.recv(min(length - len(body), 1 << 16))
        if not chunk:
            return None, fds
        body += chunk
    return protocol.decode(body), fds


def _runs_here(argv: list[str]) -> bool:
    """Only the plain search and hook lines: every other verb (reviewing a rule, which checks the
    processes that started it, above all) runs in the caller's own process."""
    from tui.cli.quick_args import quick_parse

    return quick_parse(argv) is not None


def _child(conn, request: protocol.Request, fds: list[int]) -> None:
    """Become the caller's command: its streams, folder, umask, environment and arguments."""
    import io
    import signal

    code = 70
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the hooks wait for their own children
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        fds.clear()
        os.chdir(request.cwd)
        os.umask(request.umask)
        os.environ.clear()
        os.environ.update(request.env)
        sys.argv = [request.argv0, *request.argv]
        modes = ("r", "w", "w")
        streams = []
        for fd, (encoding, errors, line_buffering), mode in zip((0, 1, 2), request.streams, modes):
            raw = io.FileIO(fd, mode, closefd=False)
            buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
            streams.append(io.TextIOWrapper(buffered, encoding=encoding, errors=errors, newline="\n",
                                            line_buffering=line_buffering))
        sys.stdin, sys.stdout, sys.stderr = streams
        conn.settimeout(None)
        conn.sendall(protocol.running_message(os.getpid()))
        if conn.recv(1) != protocol.GO:  # the caller gave up waiting: run nothing
            os._exit(0)
        from tui.cli.main import main

        code = main(request.argv, started=request.started)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        conn.sendall(protocol.exit_message(code))
    except BaseException:  # noqa: BLE001 - a child must never return into the server's loop
        try:
            conn.sendall(protocol.exit_message(code))
        except BaseException:  # noqa: BLE001
            pass
    os._exit(code if 0 <= code < 256 else 70)


def _our_module_files() -> dict[str, tuple[int, int]]:
    """Every source file of ``indexer`` and ``tui`` this process imported, with its mtime and size."""
    files = {}
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("indexer", "tui"):
            path = getattr(module, "__file__", None)
            if path:
                try:
                    info = os.stat(path)
                except OSError:
                    continue
                files[path] = (info.st_mtime_ns, info.st_size)
    return files


def _unchanged(watched: dict[str, tuple[int, int]]) -> bool:
    for path, stamp in watched.items():
        try:
            info = os.stat(path)
        except OSError:
            return False
        if (info.st_mtime_ns, info.st_size) != stamp:
            return False
    return True


def _still_ours(path: str, bound: int) -> bool:
    try:
        return os.stat(path).st_ino == bound
    except OSError:
        return False

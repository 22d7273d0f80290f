"""Start a warm server after a command ran cold (``tui.cli.warm``), so the next one is quick.

Called by ``tui.cli.main.run`` once a plain search or hook line has written its output. Nothing
is started when warm is off (``THREADBACK_WARM=0``, ``[cli] warm = false``), when a server
answers already, when one was started in the last minute (``place.spawn_marker``: a server that
cannot start is not retried on every command), or when this process runs threads.

The server is a grandchild in its own session, its standard streams on /dev/null and every
other descriptor closed: an agent that waits for a hook's output to end does not wait for it,
and a terminal's Ctrl-C does not reach it."""

from __future__ import annotations

import os
import sys
import time

from tui.cli.warm import place

# The server's command line: the caller's import path, given as the first argument, then
# ``tui.cli.warm.server.serve``.
BOOT = "import sys, ast; sys.path[:] = ast.literal_eval(sys.argv[1]); from tui.cli.warm.server import serve; serve()"


def start_if_wanted() -> None:
    if not place.enabled() or "threading" in sys.modules:
        return
    folder = place.private_folder()
    if folder is None:
        return
    server_key = place.key()
    sock = place.socket_path(folder, server_key)
    marker = place.spawn_marker(sock)
    try:
        if time.time() - os.stat(marker).st_mtime < place.SPAWN_PAUSE_SECONDS:
            return
    except OSError:
        pass
    if _answers(sock):
        return
    try:
        with open(marker, "w"):
            pass
    except OSError:
        return
    if not _allowed_by_config():
        return
    _start_detached([sys.executable, *(["-X", "utf8"] if sys.flags.utf8_mode else []), "-c", BOOT, repr(sys.path)])


def _answers(sock: str) -> bool:
    import _socket

    probe = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(sock)
        return True
    except TimeoutError:  # a full backlog: something holds the socket; start nothing beside it
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _allowed_by_config() -> bool:
    from indexer.config import ConfigError, warm_server_enabled

    try:
        return warm_server_enabled()
    except ConfigError:
        return False  # a config this command could not read: start nothing it might forbid


def _start_detached(argv: list[str]) -> None:
    """fork, setsid, fork again (so no zombie is left to this process), then exec."""
    try:
        pid = os.fork()
    except OSError:
        return
    if pid:
        try:
            os.waitpid(pid, 0)
        except OSError:
            pass
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 1 << 16)
        os.execv(argv[0], argv)
    finally:
        os._exit(0)

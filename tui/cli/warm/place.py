"""Where the warm server listens, and the key that says a server runs the same code.

The socket lives in a folder only this user can enter: ``$XDG_RUNTIME_DIR/threadback`` where
that is set, else ``/tmp/threadback-<uid>``. A folder that is not a directory, not ours, or open
to others is not used (no warm server then). The key names the interpreter and every place it
imports from (``sys.path``), so a checkout, a virtualenv and a reinstall each get their own
server; the server also refuses a request once a file it imported has changed.

Loaded on every ``threadback`` start: standard modules only, and none that are not already in
a bare interpreter except ``binascii``."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

OFF_VALUES = ("0", "false", "no", "off")
# A socket's path must fit in ``sockaddr_un`` (108 bytes on Linux, 104 on macOS) with its name.
LONGEST_FOLDER = 80
SPAWN_PAUSE_SECONDS = 60.0  # after starting a server, none is started again for this long


def enabled(env: Mapping[str, str] | None = None) -> bool:
    """Unless ``THREADBACK_WARM`` says off, and where the platform can pass file descriptors."""
    env = os.environ if env is None else env
    if env.get("THREADBACK_WARM", "").strip().lower() in OFF_VALUES:
        return False
    return hasattr(os, "fork") and sys.platform != "win32"


def key() -> str:
    """What must be equal for a server's code to be the caller's code."""
    return repr((sys.executable, sys.version, sys.path, sys.getfilesystemencoding(), sys.flags.utf8_mode))


def private_folder(env: Mapping[str, str] | None = None) -> str | None:
    """The user's private folder for sockets (made if missing), or None if it is not safe."""
    env = os.environ if env is None else env
    runtime = env.get("XDG_RUNTIME_DIR", "")
    usable = runtime and os.path.isabs(runtime) and len(os.fsencode(runtime)) <= LONGEST_FOLDER - 12
    if usable and os.path.isdir(runtime):
        folder = os.path.join(runtime, "threadback")
    else:
        folder = os.path.join("/tmp", f"threadback-{os.getuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    is_dir = (info.st_mode & 0o170000) == 0o040000
    if not is_dir or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return folder


def socket_path(folder: str, server_key: str) -> str:
    from binascii import crc32

    return os.path.join(folder, f"warm-{crc32(server_key.encode('utf-8', 'surrogatepass')):08x}.sock")


def spawn_marker(sock: str) -> str:
    """Touched when a caller starts a server: no second one starts within ``SPAWN_PAUSE_SECONDS``
    (a server that cannot start is not retried on every command)."""
    return sock[: -len(".sock")] + ".started"

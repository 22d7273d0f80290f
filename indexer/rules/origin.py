"""How an approval was made: the terminal, the programs that started the approving process, and
whether it ran detached from the person's login session.

An agent that wants an approval without the person reaches for a terminal of its own: a tmux or
screen session it types into (``tmux send-keys``), ``script`` for a pty, ``setsid`` to leave its
process tree. None of these is proof of an agent (people use tmux), and a record written by a
program running as you can be forged by another; so this is recorded with each approval and
shown beside it, for the person to judge, and it refuses nothing by itself except setting up a
passphrase (``detached_reason``).
"""

from __future__ import annotations

import os
from typing import Any

import psutil

# Terminal multiplexers: any program of yours can type into their panes.
MULTIPLEXERS = ("tmux", "screen", "zellij", "dtach", "abduco")
# Programs that give a command a pty of their own: the command is on a terminal nobody sees.
PTY_WRAPPERS = ("script", "unbuffer", "expect", "socat", "empty")
# Where a person's own terminal session starts: a login, a remote shell, a terminal window.
LOGIN_PROGRAMS = ("sshd", "login", "mosh-server", "gdm-session-worker", "lightdm", "sddm", "xterm", "urxvt",
                  "gnome-terminal-server", "konsole", "kitty", "alacritty", "wezterm-gui", "foot", "terminator",
                  "tilix", "xfce4-terminal", "st", "iterm2", "terminal", "ghostty", "warp", "code", "cursor",
                  "windowsterminal", "openconsole", "conhost")
_MAX_CHAIN = 24


def _name(process: psutil.Process) -> str:
    try:
        return process.name().lower()
    except psutil.Error:
        return "?"


def _chain() -> list[tuple[int, str, int | None]]:
    """(pid, name, parent pid) of this process's ancestors, nearest first."""
    found: list[tuple[int, str, int | None]] = []
    try:
        process = psutil.Process().parent()
        while process is not None and len(found) < _MAX_CHAIN:
            try:
                ppid = process.ppid()
            except psutil.Error:
                ppid = None
            found.append((process.pid, _name(process), ppid))
            process = process.parent()
    except psutil.Error:
        pass
    return found


def _controlling_terminal() -> bool:
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:
        return False
    os.close(fd)
    return True


def _terminal_name() -> str | None:
    for fd in (0, 1):
        try:
            return os.ttyname(fd)
        except OSError:
            continue
    return None


def _base(name: str) -> str:
    return name.split(":")[0].split(" ")[0].removesuffix(".exe")  # "tmux: server" -> "tmux"


def _first_of(names: list[str], programs: tuple[str, ...]) -> str | None:
    """The nearest ancestor's name that is one of ``programs``, or None."""
    return next((n for n in names if n in programs), None)


def _multiplexer(names: list[str], env: dict[str, str]) -> str | None:
    """The multiplexer among the ancestors, else the one the environment names (``TMUX``,
    ``STY``): the chain can be cut short, or the pane's process tree left."""
    multiplexer = _first_of(names, MULTIPLEXERS)
    if multiplexer is None and (env.get("TMUX") or env.get("STY")):
        multiplexer = "tmux" if env.get("TMUX") else "screen"
    return multiplexer


def _left_parent(chain: list[tuple[int, str, int | None]], names: list[str]) -> bool:
    """Whether an ancestor nearer than any login program was adopted by init: a process that
    left the tree it was started from."""
    for (_pid, _name_, ppid), base in zip(chain, names):
        if base in LOGIN_PROGRAMS:
            return False
        if ppid == 1 and base not in ("systemd", "init", "launchd"):
            return True  # left its parent (setsid -f, a double fork) before any login program
    return False


def _session_leader() -> str | None:
    """The name of the process leading this one's session, or None where it cannot be read."""
    try:
        return psutil.Process(os.getsid(0)).name() if hasattr(os, "getsid") else None
    except (psutil.Error, OSError):
        return None


def approval_origin(env: dict[str, str] | None = None) -> dict[str, Any]:
    """How this process is being run, as recorded beside an approval."""
    env = dict(os.environ) if env is None else env
    chain = _chain()
    names = [_base(name) for _, name, _ in chain]
    multiplexer = _multiplexer(names, env)
    wrapper = _first_of(names, PTY_WRAPPERS)
    login = _first_of(names, LOGIN_PROGRAMS)
    orphaned = _left_parent(chain, names)
    session_leader = _session_leader()
    origin = {
        "terminal": _terminal_name(),
        "controlling_terminal": _controlling_terminal(),
        "session_leader": session_leader,
        "chain": names[:12],
        "multiplexer": multiplexer,
        "pty_wrapper": wrapper,
        "left_parent": orphaned,
        "login_program": login,
    }
    reason = detached_reason(origin)
    origin["detached"] = reason is not None
    origin["summary"] = f"detached: {reason}" if reason else f"at the terminal {origin['terminal'] or '?'}"
    return origin


def detached_reason(origin: dict[str, Any]) -> str | None:
    """Why ``origin`` is not a terminal of the person's login session, or None."""
    if not origin.get("controlling_terminal"):
        return "no controlling terminal"
    if origin.get("multiplexer"):
        return f"inside {origin['multiplexer']}, whose panes any program of yours can type into"
    if origin.get("pty_wrapper"):
        return f"on a pty made by `{origin['pty_wrapper']}`"
    if origin.get("left_parent"):
        return "its process left the process tree it was started from (setsid, a double fork)"
    return None


def origin_warning(how: object) -> str | None:
    """The line a review shows beside an approval made detached, or None."""
    if not isinstance(how, dict):
        return None
    reason = detached_reason(how)
    if reason is None:
        return None
    return f"approved without a terminal of your login session ({reason})"

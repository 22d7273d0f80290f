"""Where approval may happen: only a person at a terminal approves a rule.

An agent can run commands in a terminal-like shell (``script``, a pty) and unset the variables
its shell carries (``env -u CLAUDECODE``), so neither a terminal nor the environment is proof.
The process tree is harder to shed: when any ancestor of this process is a coding agent
(any agent in the registry, indexer.sources), approval is refused.

The ancestors' environments are read too: a tmux server or a ``script`` the agent started
carries the agent's variables even when the command it runs was given a scrubbed environment.

What this does not stop: a program that detaches itself from the agent with its environment
scrubbed (``env -u CLAUDECODE setsid -f ...``, ``systemd-run``, a job handed to another
terminal) has no agent among its ancestors. That is why approving also needs the person's
passphrase (``indexer.rules.signing``), and why each approval records how it was made
(``indexer.rules.origin``). The check keeps an agent from approving by accident or in passing;
the passphrase keeps it from approving at all.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePath

import psutil

# Which processes are coding agents comes from the agent registry (indexer.sources): each entry
# names its programs, program prefixes, npm packages and the variables set in its shells, so an
# agent cannot be added without them.
# Set in the shells that coding agents run commands in. Review refuses there even on a pty.
# A process is an agent when its name, executable or script is one of AGENT_PROGRAMS (or starts
# with one of AGENT_PROGRAM_PREFIXES, ``codex-x86_64-...``), or when its command line runs one of
# AGENT_PACKAGES (npm installs; node shows as "node").
from indexer import errors
from indexer.errors import ThreadbackError
from indexer.sources import AGENT_ENV_MARKERS, AGENT_PACKAGES, AGENT_PROGRAM_PREFIXES, AGENT_PROGRAMS  # noqa: E402

_SCRIPT_SUFFIXES = (".js", ".cjs", ".mjs", ".exe", ".cmd")
# Programs that run a script named in their first argument: ``node /usr/bin/claude``.
_INTERPRETERS = {"node", "nodejs", "bun", "deno", "sh", "bash", "dash", "zsh", "env"}
_MAX_DEPTH = 256
# Which agent an environment variable of AGENT_ENV_MARKERS says started a process.
_MARKER_AGENTS = {"CLAUDECODE": "Claude Code", "CODEX_SANDBOX": "Codex", "CODEX_SANDBOX_NETWORK_DISABLED": "Codex"}


class ProcessTreeUnreadable(RuntimeError, ThreadbackError):
    """The programs that started this one cannot be checked."""
    kind = errors.REFUSED


@dataclass(frozen=True)
class AgentProcess:
    pid: int
    program: str  # what matched: "claude", "codex-x86_64-unknown-linux-musl", a package
    agent: str  # "Claude Code", "Codex", "Pi"

    def describe(self) -> str:
        return f"{self.agent} (process {self.pid}, `{self.program}`)"


def _program_names(name: str | None, exe: str | None, cmdline: list[str]) -> list[str]:
    """The names a process goes by: its name, its executable, argv[0], and the script an
    interpreter runs (``node /usr/bin/claude``), without extensions."""
    found = [name or "", PurePath(exe).name if exe else ""]
    if cmdline:
        found.append(PurePath(cmdline[0]).name)
        interpreter = {n.lower() for n in found} & _INTERPRETERS
        script = next((arg for arg in cmdline[1:3] if arg and not arg.startswith("-")), "")
        if interpreter and script:
            found.append(PurePath(script).name)
    names = []
    for item in found:
        lowered = item.lower()
        for suffix in _SCRIPT_SUFFIXES:
            lowered = lowered.removesuffix(suffix)
        if lowered:
            names.append(lowered)
    return names


def agent_of(name: str | None, exe: str | None, cmdline: list[str]) -> tuple[str, str] | None:
    """(the matching program, the agent) when these describe a coding agent's process."""
    for program in _program_names(name, exe, cmdline):
        if program in AGENT_PROGRAMS:
            return program, AGENT_PROGRAMS[program]
        for prefix, agent in AGENT_PROGRAM_PREFIXES.items():
            if program.startswith(prefix):  # a native binary an npm launcher starts
                return program, agent
    joined = " ".join(cmdline[:4])
    for package, agent in AGENT_PACKAGES.items():
        if package in joined:
            return package, agent
    return _plugin_agent_of(_program_names(name, exe, cmdline), joined)


def _plugin_agent_of(programs: list[str], joined: str) -> tuple[str, str] | None:
    """The same check against third-party agents (``threadback.agents`` entry points)."""
    from indexer.sources import plugin_agents

    for agent in plugin_agents().values():
        for program in programs:
            if program in agent.programs or program.startswith(tuple(agent.program_prefixes) or ("\0",)):
                return program, agent.label
        for package in agent.packages:
            if package in joined:
                return package, agent.label
    return None


def agent_ancestor(pid: int | None = None) -> AgentProcess | None:
    """The nearest ancestor of ``pid`` (default: this process) that is a coding agent.

    Raises ``ProcessTreeUnreadable`` when a process of this user among the ancestors cannot
    be identified (a process of another user, such as sshd or login, cannot be an agent
    acting for you, and is passed over)."""
    try:
        process = psutil.Process(os.getpid() if pid is None else pid)
        my_uid = process.uids().real if hasattr(process, "uids") else None
        in_environment: AgentProcess | None = None  # the nearest one, if no agent is named
        for _ in range(_MAX_DEPTH):
            process = process.parent()
            if process is None:
                return in_environment
            try:
                with process.oneshot():
                    name = process.name()
                    try:
                        exe = process.exe()
                    except (psutil.AccessDenied, psutil.ZombieProcess, OSError):
                        exe = None
                    try:
                        cmdline = process.cmdline()
                    except (psutil.AccessDenied, psutil.ZombieProcess):
                        cmdline = []
            except psutil.NoSuchProcess:
                return in_environment  # it ended meanwhile: the walk above it is meaningless
            except psutil.AccessDenied:
                if my_uid is not None and _uid(process) not in (my_uid, None):
                    continue
                raise ProcessTreeUnreadable(f"process {process.pid} cannot be read") from None
            match = agent_of(name, exe, cmdline)
            if match is not None:
                return AgentProcess(process.pid, *match)
            if in_environment is None and (found := _agent_in_environment(process)) is not None:
                in_environment = AgentProcess(process.pid, *found)
    except psutil.Error as exc:
        raise ProcessTreeUnreadable(str(exc) or type(exc).__name__) from None
    raise ProcessTreeUnreadable(f"more than {_MAX_DEPTH} ancestors")


def _agent_in_environment(process: psutil.Process) -> tuple[str, str] | None:
    """(``$VARIABLE`` in its environment, the agent) when an agent's variable is set in the
    environment ``process`` started with (a process of another user is not read)."""
    try:
        env = process.environ()
    except (psutil.Error, OSError):
        return None
    marker = next((name for name in AGENT_ENV_MARKERS if env.get(name)), None)
    return (f"${marker} in its environment", _MARKER_AGENTS.get(marker, "a coding agent")) if marker else None


def _uid(process: psutil.Process) -> int | None:
    try:
        return process.uids().real
    except (psutil.Error, AttributeError):
        return None


AgentFinder = Callable[[], AgentProcess | None]


def approval_refusal(env: Mapping[str, str], find_agent: AgentFinder = agent_ancestor) -> str | None:
    """Why nobody should approve from this process, or ``None``: an agent's variables in the
    environment, or an agent among the processes that started this one."""
    marker = next((name for name in AGENT_ENV_MARKERS if env.get(name)), None)
    if marker:
        return f"approval is not available inside a coding agent's shell (${marker} is set)"
    try:
        agent = find_agent()
    except ProcessTreeUnreadable as exc:
        return (f"cannot check which programs started this one ({exc}), so approval is refused; "
                "approve from a terminal of your own")
    if agent is not None:
        return (f"approval is refused: a coding agent, {agent.describe()}, started this process. "
                "Rules are approved by a person, in a terminal of their own (not the agent's).")
    return None


def review_refusal(
    interactive: bool, env: Mapping[str, str], find_agent: AgentFinder = agent_ancestor
) -> str | None:
    """Why review must not run here, or ``None`` when a person is plausibly at a terminal
    (``interactive``: stdin and stdout are both a terminal)."""
    if not interactive:
        return (
            "review needs an interactive terminal (stdin and stdout must both be a TTY); "
            "approval cannot be piped or scripted. Run it yourself in a terminal, or use the "
            "review pane in `threadback`."
        )
    refusal = approval_refusal(env, find_agent)
    return refusal.replace("approval is not available", "review is not available") if refusal else None

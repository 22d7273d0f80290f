"""The argv that resumes (or forks) a session in its own agent, and the checks before running it.

A session id and a log path come from a log file: untrusted text. They are only ever placed
into argv elements of a template (``indexer.config.LaunchTemplates``), so an id holding a space
or a ``;`` stays one argument and no shell sees it; an id that could pass for an option (a
leading ``-``) or holds control or invisible characters is refused outright.

``plan_launch`` decides what to run; ``launch_problem`` checks this machine (the folder still
exists, the agent is installed). Both explain a refusal in one line, and say what can still be
copied (``LaunchRefused.copyable``) so the app and the CLI fall back to copying.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.agents.resume import resume_command
from indexer.config import ConfigError, LaunchTemplates, load_launch_templates
from indexer.models import Session
from indexer.sources import Agent, agent_by_name
from indexer.text.safe import has_special, make_visible

MAX_ID_LENGTH = 200


class LaunchRefused(ThreadbackError):
    """Why a session cannot be resumed here, and the command line a person may still copy."""
    kind = errors.REFUSED

    def __init__(self, message: str, copyable: str | None = None):
        super().__init__(message)
        self.copyable = copyable


@dataclass(frozen=True)
class Launch:
    """One agent run: the argv (no shell), the folder it runs in, and what it resumes."""

    agent: str
    argv: tuple[str, ...]
    cwd: str | None
    session_id: str  # the session the agent opens (a subagent's parent)
    log_file: str = ""  # that session's log, when indexed: the agent reads it
    fork: bool = False

    @property
    def program(self) -> str:
        return self.argv[0]

    def shell_line(self) -> str:
        """The same run as one line to copy into a shell: every element quoted."""
        command = shlex.join(self.argv)
        return f"cd {shlex.quote(self.cwd)} && {command}" if self.cwd else command


def launch_target(session: Session, parent: Session | None) -> tuple[Session, str]:
    """The session a resume opens and its id: a Claude Code or Codex subagent's parent (the
    parent row when indexed), else the session itself."""
    agent = _agent(session.agent)
    if session.parent_session_id and agent is not None and agent.subagent_resumes_parent:
        return (parent or session), (parent.session_id if parent else session.parent_session_id)
    return session, session.session_id


def _agent(name: str) -> Agent | None:
    try:
        return agent_by_name(name)
    except KeyError:
        return None


def resume_folder(session: Session, parent: Session | None) -> str | None:
    """Where the agent must run to find the session (a moved session's ``resume_cwd`` first)."""
    target, _ = launch_target(session, parent)
    return target.resume_cwd or target.project_path or session.project_path


def check_session_id(session_id: str) -> None:
    """Refuse an id no agent writes and an attacker might: empty, option-like, too long, or
    holding control or invisible characters."""
    shown = make_visible(session_id[:60])
    if not session_id.strip():
        raise LaunchRefused("the session has no id to resume")
    if session_id.startswith("-"):
        raise LaunchRefused(f"session id {shown!r} starts with '-': an agent would read it as an option")
    if len(session_id) > MAX_ID_LENGTH or has_special(session_id) or "\n" in session_id:
        raise LaunchRefused(f"session id {shown!r} holds characters no agent's id has")


def plan_launch(session: Session, parent: Session | None, templates: dict[str, LaunchTemplates],
                *, fork: bool = False) -> Launch:
    """The argv resuming (``fork``: forking) ``session``, from its agent's template; raises
    ``LaunchRefused``."""
    agent = _agent(session.agent)
    if agent is None:
        raise LaunchRefused(f"no resume command is known for agent {make_visible(session.agent)!r}")
    commands = templates.get(session.agent) or LaunchTemplates(agent.resume_argv, agent.fork_argv)
    if not commands.resume:
        raise LaunchRefused(f"{agent.label} cannot resume a session: {agent.no_resume or 'no resume command'}")
    template = commands.fork if fork else commands.resume
    if not template and not agent.fork_argv:
        raise LaunchRefused(f"{agent.label} cannot fork a session: R resumes it instead")
    if not template:
        raise LaunchRefused(f"forking is turned off for {agent.label} (the config file's [resume.{agent.name}] "
                            "has fork = []): R resumes the session instead")
    target, target_id = launch_target(session, parent)
    check_session_id(target_id)
    opens_itself = target.session_id == target_id  # not a subagent whose parent is not indexed
    log_file = target.source_path if opens_itself else ""
    cwd = resume_folder(session, parent)
    # {session}: the id up to its first "/" (Kimi names an agent's log <session>/<agent>; it resumes the session)
    values = {"id": target_id, "session": target_id.split("/", 1)[0], "file": log_file, "cwd": cwd or ""}
    if "{file}" in "".join(template) and (not log_file or log_file.startswith("-")):
        raise LaunchRefused(f"the log file of {make_visible(target_id)} is not known")
    argv = tuple(element.format_map(values) for element in template)
    return Launch(session.agent, argv, cwd, target_id, log_file, fork)


def launch_problem(launch: Launch, *, which: Callable[[str], str | None] = shutil.which) -> LaunchRefused | None:
    """What stops ``launch`` from running on this machine, or None: the folder is unknown or
    gone, the agent is not installed, or the log file it reads is gone."""
    copyable = launch.shell_line()
    if not launch.cwd:
        return LaunchRefused("the session's folder is not known: the agent would not find it", copyable)
    if not os.path.isabs(launch.cwd):
        return LaunchRefused(f"the session's folder {make_visible(launch.cwd)!r} is not an absolute path", copyable)
    if not os.path.isdir(launch.cwd):
        return LaunchRefused(f"the session's folder {make_visible(launch.cwd)} no longer exists", copyable)
    if which(launch.program) is None:
        return LaunchRefused(f"{make_visible(launch.program)!r} is not installed (not found on PATH)", copyable)
    if launch.log_file and not os.path.exists(launch.log_file):
        return LaunchRefused(log_gone_note(launch.log_file, launch.session_id), copyable)
    return None


def log_gone_note(log_file: str, session_id: str) -> str:
    """Why a session whose log was deleted cannot be resumed, and the way back (the archive)."""
    return (f"the log file {make_visible(log_file)} is gone: the agent cannot resume it; "
            f"`threadback restore {make_visible(session_id)}` writes it back from the archive first")


def resume_line(session: Session, parent: Session | None,
                templates: dict[str, LaunchTemplates] | None = None) -> str:
    """The resume command to copy or print, from the configured template (what ``R`` runs),
    quoted for a shell; the registry's command when the config cannot be read or the plan is
    refused (``R`` then says why)."""
    try:
        return plan_launch(session, parent, templates if templates is not None else load_launch_templates()).shell_line()
    except (ConfigError, LaunchRefused):
        return resume_command(session, parent)

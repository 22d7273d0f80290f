"""``threadback resume --exec [--fork] SESSION``: run the agent on the session, in its folder.

The agent replaces this process (``os.execv``), so its exit code, signals and terminal are its
own; where exec is not available (Windows) it runs as a child and its exit code is passed
through. When it cannot run (folder gone, agent not installed, no fork), the reason goes to
stderr and the command a person could still try goes to stdout.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

from indexer import Index, Session
from indexer.agents.launch_argv import Launch, LaunchRefused, launch_problem, plan_launch
from indexer.config import load_launch_templates
from tui.cli.exits import NOT_FOUND, REFUSED, CommandError
from tui.cli.terminal import safe_text


def planned_launch(index: Index, session: Session, *, fork: bool) -> Launch:
    """The launch for ``session`` from the config's templates (``ConfigError`` passes up)."""
    try:
        return plan_launch(session, index.parent(session), load_launch_templates(), fork=fork)
    except LaunchRefused as exc:
        raise CommandError(str(exc), REFUSED) from None


def exec_launch(index: Index, session: Session, *, fork: bool) -> int:
    launch = planned_launch(index, session, fork=fork)
    problem = launch_problem(launch)
    if problem is not None:
        if problem.copyable:
            print(safe_text(problem.copyable))
        raise CommandError(f"{problem} (the command is printed above to run by hand)", NOT_FOUND)
    index.close()
    program = shutil.which(launch.program)
    assert program is not None  # launch_problem checked it
    what = "forking" if fork else "resuming"
    print(safe_text(f"threadback: {what} in {launch.cwd}: {shlex.join(launch.argv)}"), file=sys.stderr, flush=True)
    sys.stdout.flush()
    if hasattr(os, "execv") and sys.platform != "win32":
        os.chdir(launch.cwd or ".")
        os.execv(program, list(launch.argv))
    return subprocess.run([program, *launch.argv[1:]], cwd=launch.cwd, check=False).returncode


def fork_line(index: Index, session: Session) -> str:
    """``resume --fork`` without ``--exec``: the fork command, quoted for a shell."""
    return planned_launch(index, session, fork=True).shell_line()

"""ctrl+e / ctrl+d: resume or fork a session in its agent, with the app suspended meanwhile.

A fork always asks first (a one-line confirm: enter forks), since it writes a new session.
The app steps aside (``App.suspend``), the agent runs in the session's folder with the argv of
its template (``indexer.agents.launch_argv``), and the app comes back when the agent exits, then
indexes the session's log at once (an open transcript shows what the agent wrote) and then
everything else it may have written (a fork's new session). Whatever stops the run (no fork, folder gone, agent not
installed, a terminal that cannot be suspended) is said in one notification, and the command
is copied instead so it can be run by hand.

Running the agent is one injectable call (``AgentRunner``): tests give one that runs the
process without suspending, since a headless app cannot hand over its terminal.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.app import App, SuspendNotSupported
from textual.message import Message

from indexer import ConfigError, IndexBusyError, IndexError_, IndexSummary, Session
from indexer.agents.launch_argv import Launch, LaunchRefused, launch_problem, plan_launch
from indexer.config import load_launch_templates
from tui.app_context import AppContext
from tui.requests import ResumeSession
from tui.clipboard import copy_text
from tui.display.log_text import one_line, visible
from tui.screens.confirm import ConfirmLine, on_yes

if TYPE_CHECKING:  # the type checker sees the App this is mixed into; at run time a plain mixin
    from textual.worker import Worker
    _AppBase = App[None]
else:
    _AppBase = object


@dataclass(frozen=True)
class AgentExit:
    """How a run ended: the agent's exit code."""

    code: int


AgentRunner = Callable[[App, Launch], AgentExit]


class CannotSuspend(Exception):
    """The terminal cannot be handed to another program from here."""


def run_suspended(app: App, launch: Launch) -> AgentExit:
    """The agent in the real terminal while the app is suspended (the default runner)."""
    try:
        with app.suspend():
            code = subprocess.run(list(launch.argv), cwd=launch.cwd, check=False).returncode
    except SuspendNotSupported as exc:
        raise CannotSuspend("this terminal cannot hand itself over to the agent") from exc
    return AgentExit(code)


class LaunchesAgents(_AppBase):
    """Mixed into the app, which provides the context, notifications and the index refresh."""

    context: AppContext
    agent_runner: AgentRunner = staticmethod(run_suspended)

    if TYPE_CHECKING:  # the app's, declared here only: a method here would shadow it
        live_generation: int
        def load_stats(self) -> Worker[None]: ...

    @dataclass
    class AgentLogIndexed(Message):
        """The resumed session's log was indexed after the agent exited."""

        summary: IndexSummary | None

    def on_resume_session(self, request: ResumeSession) -> None:
        if not request.fork:
            self.launch_agent(request.session, fork=False)
            return
        app: App = self
        title = one_line(request.session.title or request.session.session_id, 50)
        app.push_screen(ConfirmLine(f"Fork “{title}” into a new {request.session.agent} session?", yes="fork"),
                        on_yes(lambda: self.launch_agent(request.session, fork=True)))

    def launch_agent(self, session: Session, *, fork: bool) -> None:
        app: App = self
        verb = "fork" if fork else "resume"
        try:
            launch = plan_launch(session, self.context.index.parent(session), load_launch_templates(), fork=fork)
        except (LaunchRefused, ConfigError) as exc:
            app.notify(visible(str(exc)), title=f"Cannot {verb} this session", severity="warning", markup=False)
            return
        problem = launch_problem(launch)
        if problem is None:
            try:
                ended = self.agent_runner(app, launch)
            except (CannotSuspend, OSError) as exc:
                problem = LaunchRefused(str(exc), launch.shell_line())
            else:
                self._agent_returned(launch, ended, session)
                return
        self._copy_instead(problem, verb)

    def _copy_instead(self, problem: LaunchRefused, verb: str) -> None:
        app: App = self
        if problem.copyable:
            copy_text(app, problem.copyable)
        note = f"{problem}.\nCopied the command to run by hand." if problem.copyable else f"{problem}."
        app.notify(visible(note), title=f"Cannot {verb} here", severity="warning", timeout=8, markup=False)

    def _agent_returned(self, launch: Launch, ended: AgentExit, session: Session) -> None:
        app: App = self
        how = "exited" if ended.code == 0 else f"exited with code {ended.code}"
        app.notify(visible(f"{launch.program} {how}."), title="Back from the agent", timeout=4, markup=False)
        self.index_agent_log(session.source_path)

    @work(thread=True, group="agent-log", exit_on_error=False)
    def index_agent_log(self, path: str) -> None:
        """The session's own log first, alone: a second or less, so the transcript on show has
        what the agent wrote at once; the whole run after it finds any new file (a fork)."""
        summary: IndexSummary | None = None
        try:
            summary = self.context.index.update(self.context.roots, only=[path], where="app")
        except (IndexBusyError, IndexError_):
            pass  # the whole run after this one tells of it
        self.post_message(self.AgentLogIndexed(summary))

    def on_launches_agents_agent_log_indexed(self, event: AgentLogIndexed) -> None:
        app = self
        if event.summary is not None and (event.summary.messages_added or event.summary.files_changed):
            app.live_generation += 1  # screens on show read again
            app.load_stats()
        refresh = getattr(app, "refresh_index", None)
        if refresh is not None and not self.context.demo:
            refresh()  # anything else the agent wrote

"""ctrl+g on a transcript: hand the session to another agent. The brief is built in a worker and
shown with its size; enter on an agent asks to confirm (it starts a process), then runs the
agent in the session's folder through the app's agent runner, as ``R`` does. ``c`` copies the
brief instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from indexer import Session
from indexer.agents.launch_argv import LaunchRefused, launch_problem
from indexer.provenance.handoff import Brief, build_brief, plan_handoff
from indexer.sources import AGENTS
from tui.app_context import AppContext
from tui.clipboard import copy_text
from tui.display.log_text import log_text, visible
from tui.screens.confirm import ConfirmScreen, on_yes
from tui.worker_errors import ReportsWorkerErrors


class HandoffScreen(ReportsWorkerErrors, ModalScreen[None]):
    HELP_TITLE = "Hand a session to another agent"
    BINDINGS = [Binding("escape", "dismiss_none", "Close", id="handoff.close"),
                Binding("c", "copy_brief", "Copy the brief", id="handoff.copy")]

    @dataclass
    class Built(Message):
        brief: Brief

    def __init__(self, context: AppContext, session: Session) -> None:
        super().__init__()
        self.context, self.session = context, session
        self.brief: Brief | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="handoff-dialog"):
            yield Label("Hand this session to another agent", id="handoff-title")
            with VerticalScroll(id="handoff-brief"):
                yield Static(Text("writing the brief...", style="dim"), id="handoff-text")
            yield Static("", id="handoff-size")
            yield OptionList(*(Option(a.label, id=a.name) for a in AGENTS), id="handoff-agents")
            yield Static(Text("enter: start that agent with the brief (asks first) · c: copy the brief · escape: close",
                              style="dim"))

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.build()

    @work(thread=True, exclusive=True, group="handoff", exit_on_error=False)
    def build(self) -> None:
        """The project's memory folder (its ``./memory/`` once allowed, as the CLI resolves it)."""
        from indexer.memory import MemoryStore

        folder = self.session.resume_cwd or self.session.project_path
        cwd = Path(folder) if folder and Path(folder).is_dir() else None
        memory = MemoryStore.open(self.context.memory_dir, cwd).folder
        self.post_message(self.Built(build_brief(self.context.index, self.session, memory_dir=memory)))

    def on_handoff_screen_built(self, event: Built) -> None:
        self.brief = event.brief
        self.query_one("#handoff-text", Static).update(log_text(event.brief.text))
        self.query_one("#handoff-size", Static).update(Text(
            f"about {event.brief.tokens} tokens (the whole transcript: about {event.brief.transcript_tokens})",
            style="dim"))

    @on(OptionList.OptionSelected, "#handoff-agents")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if self.brief is None:
            return
        agent = event.option.id or ""
        try:
            launch = plan_handoff(self.session, agent, self.brief)
        except LaunchRefused as exc:
            self.notify(visible(str(exc)), severity="warning", markup=False)
            return
        question = f"Start {launch.program} in {launch.cwd or '(unknown folder)'} with this brief as its first prompt?"
        self.app.push_screen(ConfirmScreen("Hand off the session", question, yes="Start it"),
                             on_yes(lambda: self._start(launch)))

    def _start(self, launch) -> None:
        problem = launch_problem(launch)
        runner = getattr(self.app, "agent_runner", None)
        if problem is None and runner is not None:
            try:
                ended = runner(self.app, launch)
            except Exception as exc:  # the terminal cannot be handed over, the program failed to start
                problem = LaunchRefused(str(exc))
            else:
                self.notify(f"{launch.program} exited with code {ended.code}.", timeout=4)
                self.dismiss(None)
                return
        self.action_copy_brief()
        self.notify(visible(f"{problem}. Copied the brief to paste into the agent by hand."), severity="warning",
                    timeout=8, markup=False)

    def action_copy_brief(self) -> None:
        if self.brief is not None:
            copy_text(self.app, self.brief.text)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

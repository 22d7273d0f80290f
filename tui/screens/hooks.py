"""F6: are Threadback's Claude Code hooks installed (user and project settings)? Install or
remove them after a confirm. Below them, read only, what ``threadback hooks status`` also says:
Codex's hooks (user and project ``.codex`` folders) and the MCP server's registration with
Claude Code and Codex, each with the command that installs it; pi reads AGENTS.md
(``threadback hooks print --pi``).

The reading and writing is ``indexer.hooks``: atomic, a ``.bak`` of the previous file, only
our entries touched, a settings.json that does not parse reported and left alone.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from indexer.agents import codex_hooks, mcp_registration
from indexer.util.fileio import ChangedOnDiskError
from indexer.agents.settings import (
    HOOK_EVENTS,
    HookChange,
    HooksStatus,
    hook_program,
    SettingsError,
    hooks_status,
    install_hooks,
    uninstall_hooks,
)
from tui.display.log_text import visible
from tui.screens.confirm import ConfirmScreen, on_yes
from tui.worker_errors import ReportsWorkerErrors

PI_NOTE = "Pi reads AGENTS.md instead of hooks: `threadback hooks print --pi` prints the block to paste."
CODEX_INSTALL = "threadback hooks install --codex"  # add --project for this project's .codex folder
MCP_INSTALL = "threadback hooks install --mcp"
CODEX_TRUST = "Codex runs a new hook only after you trust it: /hooks in codex."
INTRO = ("With the hooks, Claude Code uses Threadback on its own: SessionStart loads your memory and "
         "rules, UserPromptSubmit reminds it to search history when you refer to past work, and "
         "Stop/SessionEnd refresh the index.")


@dataclass(frozen=True)
class AgentFiles:
    """Where Codex keeps its hooks and each agent its MCP servers: the files ``threadback hooks
    install --codex`` and ``--mcp`` write and ``hooks status`` reads."""

    codex_user: Path  # $CODEX_HOME (~/.codex)
    codex_project: Path  # <cwd>/.codex
    claude_mcp: Path  # ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json)
    codex_mcp: Path  # ~/.codex/config.toml

    @classmethod
    def found(cls, cwd: Path | None = None) -> "AgentFiles":
        return cls(codex_hooks.codex_home(), codex_hooks.project_codex_folder(cwd),
                   mcp_registration.claude_user_config(), mcp_registration.codex_user_config())


@dataclass(frozen=True)
class OtherRoutes:
    """Codex's hooks per folder and the MCP registration per agent, as read."""

    codex: tuple[tuple[str, codex_hooks.CodexHooksStatus], ...]  # (title, status)
    mcp: tuple[tuple[str, mcp_registration.McpStatus], ...]  # (agent, status)


def read_other_routes(files: AgentFiles) -> OtherRoutes:
    """Blocking file reads: call from a worker."""
    return OtherRoutes(
        (("User", codex_hooks.folder_status(files.codex_user)),
         ("Project", codex_hooks.folder_status(files.codex_project))),
        (("Claude Code", mcp_registration.mcp_status(files.claude_mcp)),
         ("Codex", mcp_registration.mcp_status(files.codex_mcp))),
    )


def _codex_line(text: Text, title: str, status: codex_hooks.CodexHooksStatus, label: Callable[[Path], str]) -> None:
    text.append(f"\n  {title}  ", style="bold")
    text.append(visible(label(status.path)), style="dim")
    text.append("\n    ")
    for event in status.expected:
        on = event in status.installed
        text.append("✓ " if on else "✗ ", style="green" if on else "dim")
        text.append(event + "   ", style="" if on else "dim")
    if status.error is not None:
        text.append("cannot read it: " + visible(status.error), style="bold red")
    elif status.complete:
        text.append("installed", style="bold green")
    elif status.installed:
        text.append(f"partly installed (missing {', '.join(status.missing)})", style="bold yellow")
    else:
        text.append("not installed", style="bold")


def other_routes_text(routes: OtherRoutes, label: Callable[[Path], str]) -> Text:
    """The read-only part of F6: Codex's hooks, the MCP server, pi, each with its command."""
    text = Text()
    text.append("Codex hooks", style="bold")
    text.append(f"  install: {CODEX_INSTALL} [--project]", style="dim")
    for title, status in routes.codex:
        _codex_line(text, title, status, label)
    text.append(f"\n  {CODEX_TRUST}", style="dim")
    text.append("\n\nMCP server", style="bold")
    text.append(f"  install: {MCP_INSTALL}", style="dim")
    for agent, mcp in routes.mcp:
        text.append(f"\n  {agent}  ", style="bold")
        text.append(visible(label(mcp.path)) + "  ", style="dim")
        if mcp.error is not None:
            text.append("cannot read it: " + visible(mcp.error), style="bold red")
        elif mcp.installed:
            text.append("registered", style="bold green")
        else:
            text.append("not registered", style="bold")
    text.append("\n\n" + PI_NOTE)
    return text


@dataclass(frozen=True)
class SettingsScope:
    """One Claude Code settings file the screen manages."""

    key: str  # "user" | "project": the widget ids use it
    title: str  # "User settings"
    path: Path
    label: str  # the path as shown (``~/.claude/settings.json``)

    def shorten(self, message: str) -> str:
        """An error message with the file's full path replaced by its label."""
        return message.replace(str(self.path), self.label)


def hooks_summary(statuses: Sequence[tuple[str, HooksStatus]]) -> str:
    """``on (user)``, ``partly on (project)``, ``off``, ``settings error (user)``: one word-ish
    for the help screen, from (scope name, status) pairs."""
    complete = [name for name, s in statuses if s.complete]
    partial = [name for name, s in statuses if s.installed and not s.complete and s.error is None]
    broken = [name for name, s in statuses if s.error is not None]
    parts = []
    if complete:
        parts.append(f"on ({', '.join(complete)})")
    if partial:
        parts.append(f"partly on ({', '.join(partial)})")
    if broken:
        parts.append(f"settings error ({', '.join(broken)})")
    return "; ".join(parts) or "off"


def describe(status: HooksStatus) -> tuple[str, str]:
    """(state, style) for one settings file."""
    if status.error is not None:
        return "cannot read it: nothing will be written until it is fixed", "bold red"
    if status.complete:
        return "installed", "bold green"
    if status.installed:
        return f"partly installed (missing {', '.join(status.missing)})", "bold yellow"
    if not status.exists:
        return "not installed (no settings file yet)", "bold"
    return "not installed", "bold"


class HooksScreen(ReportsWorkerErrors, ModalScreen[None]):
    """Which Threadback hooks each settings file has, with Install / Uninstall per file."""

    BINDINGS = [Binding("escape,q", "close", "Close", id="hooks.close")]

    @dataclass
    class StatusLoaded(Message):
        """What the settings files hold now; it bubbles up so the app's summary follows."""

        statuses: tuple[tuple[str, HooksStatus], ...]  # (scope key, status), in scope order

    @dataclass
    class OtherRoutesLoaded(Message):
        routes: OtherRoutes

    @dataclass
    class Written(Message):
        scope: SettingsScope
        change: HookChange | None
        error: str | None = None

    def __init__(self, scopes: Sequence[SettingsScope], *, program: str | None = None,
                 agent_files: AgentFiles | None = None, label: Callable[[Path], str] = str) -> None:
        super().__init__()
        self.scopes = tuple(scopes)
        self.agent_files = agent_files or AgentFiles.found()
        self.label = label
        self.program, self.program_note = (program, None) if program else hook_program(sys.argv[0] if sys.argv else None)
        self.statuses: dict[str, HooksStatus] = {}
        self.errors: dict[str, str] = {}  # the last failed write per scope

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="hooks-dialog"):
            yield Label("Hooks and the MCP server", id="hooks-title")
            yield Static(INTRO, id="hooks-intro", markup=False)
            for scope in self.scopes:
                with Vertical(classes="hooks-scope", id=f"hooks-{scope.key}"):
                    yield Static(Text(f"{scope.title}  {scope.label}"), classes="hooks-status",
                                 id=f"hooks-{scope.key}-status")
                    with Horizontal(classes="hooks-buttons"):
                        yield Button("Install", id=f"install-{scope.key}", variant="primary", disabled=True)
                        yield Button("Uninstall", id=f"uninstall-{scope.key}", disabled=True)
            yield Static(Text("Codex hooks and the MCP server: reading…", style="dim"), id="hooks-other")
            yield Static("escape closes", id="hooks-help")

    def on_mount(self) -> None:
        self.load_status()

    # -- reading -------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="hooks-status", exit_on_error=False)
    def load_status(self) -> None:
        self.post_message(self.StatusLoaded(tuple((s.key, hooks_status(s.path)) for s in self.scopes)))
        self.post_message(self.OtherRoutesLoaded(read_other_routes(self.agent_files)))

    def on_hooks_screen_other_routes_loaded(self, event: OtherRoutesLoaded) -> None:
        self.query_one("#hooks-other", Static).update(other_routes_text(event.routes, self.label))

    def on_hooks_screen_status_loaded(self, event: StatusLoaded) -> None:
        self.statuses = dict(event.statuses)
        for scope in self.scopes:
            self._paint(scope)

    def _paint(self, scope: SettingsScope) -> None:
        status = self.statuses.get(scope.key)
        text = Text()
        text.append(scope.title, style="bold")
        text.append(f"  {visible(scope.label)}", style="dim")
        if status is not None:
            text.append("\n")
            for event in HOOK_EVENTS:
                on = event in status.installed
                text.append("✓ " if on else "✗ ", style="green" if on else "dim")
                text.append(event + "   ", style="" if on else "dim")
            state, style = describe(status)
            text.append("\n")
            text.append(state, style=style)
            if status.error is not None:
                text.append("\n")
                text.append(visible(scope.shorten(status.error)), style="red")
        if scope.key in self.errors:
            text.append("\n")
            text.append(visible(scope.shorten(self.errors[scope.key])), style="bold red")
        self.query_one(f"#hooks-{scope.key}-status", Static).update(text)
        readable = status if status is not None and status.error is None else None
        self.query_one(f"#install-{scope.key}", Button).disabled = readable is None or readable.complete
        self.query_one(f"#uninstall-{scope.key}", Button).disabled = readable is None or not readable.installed

    # -- writing -------------------------------------------------------------------------------
    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        action, _, key = (event.button.id or "").partition("-")
        scope = next((s for s in self.scopes if s.key == key), None)
        if scope is None or action not in ("install", "uninstall"):
            return
        event.stop()
        if action == "install":
            status = self.statuses.get(key)
            events = ", ".join(status.missing if status else HOOK_EVENTS)
            confirm = ConfirmScreen(
                "Install Threadback's hooks?",
                f"Add Threadback's hooks for {events} to {scope.label}?\n\n"
                + (f"{self.program_note}\n\n" if self.program_note else "")
                + "Other settings and hooks stay as they are; the previous file is kept as settings.json.bak.",
                yes="Install",
                no="Cancel",
            )
        else:
            confirm = ConfirmScreen(
                "Remove Threadback's hooks?",
                f"Remove the Threadback hook entries from {scope.label}?\n\n"
                "Only what Threadback added is removed; the previous file is kept as settings.json.bak.",
                yes="Uninstall",
                no="Cancel",
            )
        self.app.push_screen(confirm, on_yes(lambda: self.write(scope, action)))

    @work(thread=True, exclusive=True, group="hooks-write", exit_on_error=False)
    def write(self, scope: SettingsScope, action: str) -> None:
        try:
            if action == "install":
                change = install_hooks(scope.path, program=self.program)
            else:
                change = uninstall_hooks(scope.path)
        except (SettingsError, ChangedOnDiskError, OSError) as exc:
            self.post_message(self.Written(scope, None, str(exc)))
            return
        self.post_message(self.Written(scope, change))

    def on_hooks_screen_written(self, event: Written) -> None:
        scope, change = event.scope, event.change
        if event.error is not None or change is None:
            self.errors[scope.key] = f"Nothing was written: {event.error}"
            self.notify(visible(scope.shorten(event.error or "")), title="Hooks not changed", severity="error", timeout=10)
        else:
            self.errors.pop(scope.key, None)
            if change.added:
                self.notify(f"Added hooks for {', '.join(change.added)} to {scope.label}", title="Hooks installed")
            elif change.removed:
                self.notify(f"Removed hooks for {', '.join(change.removed)} from {scope.label}", title="Hooks removed")
            elif change.denied or change.undenied:  # only the deny rules for the approval commands
                self.notify(f"Updated the deny rules for the approval commands in {scope.label}")
            else:
                self.notify(f"{scope.label} already had what was asked: nothing changed")
        self.load_status()

    def action_close(self) -> None:
        self.dismiss(None)

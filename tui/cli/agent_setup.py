"""``threadback hooks install|uninstall|status`` for Codex hooks and the MCP server (``--codex``,
``--mcp``); the Claude Code hooks are in ``tui.cli.agents``. The file work is in
``indexer.agents.codex_hooks`` and ``indexer.agents.mcp_registration``."""

from __future__ import annotations

import argparse
import shutil
from dataclasses import dataclass
from pathlib import Path

from indexer.agents import codex_hooks, mcp_registration
from indexer.agents.permissions import install_codex_deny, uninstall_codex_deny
from indexer.agents.settings import HooksStatus, hooks_status, project_settings_path, user_settings_path
from indexer.output import json_shapes as output
from tui.cli.exits import OK, CommandError, say

CODEX_TRUST_NOTE = ("Codex runs a new hook only once you trust it: start `codex`, open `/hooks`, review "
                    "Threadback's three hooks and trust them.")


@dataclass(frozen=True)
class RouteStatus:
    """One line of ``hooks status``: an agent, a route (hooks or mcp) and its file's state."""

    agent: str
    route: str
    path: Path
    exists: bool
    installed: tuple[str, ...]
    missing: tuple[str, ...]
    error: str | None
    denied: tuple[str, ...] = ()  # Claude Code: our deny rules for the approval commands present

    def to_json(self) -> dict:
        return {"agent": self.agent, "route": self.route, "path": str(self.path), "exists": self.exists,
                "installed": list(self.installed), "missing": list(self.missing), "error": self.error,
                "denied": list(self.denied)}

    def describe(self) -> str:
        if self.error:
            return f"cannot read: {self.error}"
        if not self.exists:
            return "no such file"
        if not self.missing:
            state = "installed" + (f" ({', '.join(self.installed)})" if self.route == "hooks" else "")
        elif self.installed:
            state = f"partly installed ({', '.join(self.installed)}; missing {', '.join(self.missing)})"
        else:
            state = "not installed"
        return state + (f"; approval commands denied ({len(self.denied)} rules)" if self.denied else "")


def hooks_route(agent: str, status: HooksStatus | codex_hooks.CodexHooksStatus) -> RouteStatus:
    return RouteStatus(agent, "hooks", status.path, status.exists, tuple(status.installed), tuple(status.missing),
                       status.error, status.denied if isinstance(status, HooksStatus) else ())


def mcp_route(agent: str, status: mcp_registration.McpStatus) -> RouteStatus:
    name = (mcp_registration.SERVER_NAME,)
    return RouteStatus(agent, "mcp", status.path, status.exists, name if status.installed else (),
                       () if status.installed else name, status.error)


# -- where ----------------------------------------------------------------------------------
def codex_folder(args: argparse.Namespace) -> Path:
    return codex_hooks.project_codex_folder() if args.project else codex_hooks.codex_home()


def mcp_targets(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """(agent, config file) pairs that ``--mcp`` touches: both agents unless one is named."""
    if args.settings:
        if not (args.claude_code or args.codex):
            raise CommandError("with --settings, name the agent the file belongs to: --claude-code or --codex")
        return [("codex" if args.codex else "claude-code", Path(args.settings).expanduser())]
    targets = []
    if not args.codex:
        path = (mcp_registration.claude_project_config() if args.project
                else mcp_registration.claude_user_config())
        targets.append(("claude-code", path))
    if not args.claude_code:
        targets.append(("codex", codex_folder(args) / codex_hooks.CONFIG_TOML))
    return targets


def _report(done: str, path: Path, backup: Path | None) -> None:
    print(done.format(path=path))
    if backup:
        print(f"previous version kept as {backup}")


def _program_warning(program: str) -> None:
    if program == "threadback" and shutil.which("threadback") is None:
        say("threadback", "warning: `threadback` is not on PATH, so the agents cannot start it yet; put it on PATH "
             "or reinstall with --program /full/path/to/threadback")


# -- install / uninstall ----------------------------------------------------------------------
def install_codex(args: argparse.Namespace) -> int:
    path = Path(args.settings).expanduser() if args.settings else codex_hooks.hooks_file(codex_folder(args))
    change = codex_hooks.install_codex_hooks(path, program=args.program)
    if change.changed:
        _report(f"added Threadback hooks for {', '.join(change.added)} to {{path}}", path, change.backup)
        print(CODEX_TRUST_NOTE)
    else:
        print(f"Threadback hooks are already installed in {path}: nothing changed")
    denied = install_codex_deny(path.parent, args.program)
    if denied:
        print(f"Codex may not run `threadback rules review` or `threadback memory allow`: rules in {denied}")
    _program_warning(args.program)
    return OK


def uninstall_codex(args: argparse.Namespace) -> int:
    if args.settings:
        changes = [c for c in [codex_hooks.uninstall_codex_hooks(Path(args.settings).expanduser())] if c.changed]
        where = Path(args.settings).expanduser()
    else:
        where = codex_folder(args)
        changes = codex_hooks.uninstall_from_folder(where)
        removed = uninstall_codex_deny(where)
        if removed:
            print(f"removed Threadback's Codex rules {removed}")
    for change in changes:
        _report(f"removed Threadback hooks for {', '.join(change.removed)} from {{path}}", change.path, change.backup)
    if not changes:
        print(f"no Threadback hooks in {where}: nothing changed")
    return OK


def install_mcp(args: argparse.Namespace) -> int:
    for agent, path in mcp_targets(args):
        change = mcp_registration.install_mcp(path, program=args.program)
        if change.changed:
            _report(f"registered the Threadback MCP server for {agent} in {{path}}", path, change.backup)
        else:
            print(f"the Threadback MCP server is already registered for {agent} in {path}: nothing changed")
    _program_warning(args.program)
    return OK


def uninstall_mcp(args: argparse.Namespace) -> int:
    for agent, path in mcp_targets(args):
        change = mcp_registration.uninstall_mcp(path)
        if change.changed:
            _report(f"removed the Threadback MCP server for {agent} from {{path}}", path, change.backup)
        else:
            print(f"no Threadback MCP server for {agent} in {path}: nothing changed")
    return OK


# -- status -----------------------------------------------------------------------------------
def claude_hook_paths(args: argparse.Namespace) -> list[Path]:
    if args.settings:
        return [Path(args.settings).expanduser()]
    if args.project:
        return [project_settings_path()]
    if args.user:
        return [user_settings_path()]
    return [user_settings_path(), project_settings_path()]


def route_statuses(args: argparse.Namespace) -> list[RouteStatus]:
    """What ``hooks status`` reports: the routes the flags name, or every route."""
    any_agent = not (args.claude_code or args.codex)
    routes: list[RouteStatus] = []
    if not args.mcp:
        if args.claude_code or any_agent:
            routes += [hooks_route("claude-code", hooks_status(p)) for p in claude_hook_paths(args)]
        if args.codex or any_agent:
            if args.settings:
                routes.append(hooks_route("codex", codex_hooks.codex_hooks_status(Path(args.settings).expanduser())))
            else:
                folders = [codex_folder(args)] if (args.user or args.project) else [
                    codex_hooks.codex_home(), codex_hooks.project_codex_folder()]
                routes += [hooks_route("codex", codex_hooks.folder_status(f)) for f in folders]
    if args.mcp or (any_agent and not args.settings):
        routes += [mcp_route(agent, mcp_registration.mcp_status(path)) for agent, path in mcp_targets(args)]
    seen: set[tuple[str, str, Path]] = set()  # in the home folder, "the project's" file is the user's
    unique = []
    for r in routes:
        key = (r.agent, r.route, r.path.expanduser().resolve())
        if key not in seen:
            seen.add(key)
            unique.append(r)
    return unique


def print_status(args: argparse.Namespace) -> int:
    routes = route_statuses(args)
    if args.json:
        print(output.dumps([r.to_json() for r in routes]))
        return OK
    for r in routes:
        label = "MCP server" if r.route == "mcp" else "hooks"
        print(f"{r.agent} {label}: {r.path}: {r.describe()}")
    return OK

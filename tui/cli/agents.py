"""``threadback context | hook | hooks | usage``: commands for agents using Threadback on their own.

The flows are in ``indexer.agents``; ``threadback hook`` itself is ``tui.cli.hook``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from indexer.agents.context import DEFAULT_MAX_BYTES, FolderContext, material_from, render_context, run_all
from indexer.agents.routing import ROUTING_BLOCK, setup_for
from indexer.agents.settings import (
    HookChange,
    hook_entries,
    install_hooks,
    project_settings_path,
    uninstall_hooks,
    user_settings_path,
)
from indexer.agents.usage import AGENT, CALLERS, HOOK, YOU, UsageEvent, caller_of, usage_log_path
from indexer.agents.usage_report import usage_report
from tui.cli import agent_setup
from indexer.output import json_shapes as output
from tui.cli.exits import OK, USAGE, CommandError, command, say
from tui.cli.options import add_index_options, memory_dir_of, record_call
from tui.cli.terminal import safe_text
from tui.cli.verbs import help_of

agents_command = command()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("context", help=help_of("context"))
    p.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, metavar="N",
                   help=f"cap the output at N bytes (default {DEFAULT_MAX_BYTES})")
    p.add_argument("--memory-dir", dest="memory_dir", metavar="DIR", default=argparse.SUPPRESS,
                   help="memory folder (default: $THREADBACK_MEMORY_DIR, ./memory, or the global one)")
    p.add_argument("--json", action="store_true", help="the pieces and the text as JSON")
    p.set_defaults(func=cmd_context)

    p = sub.add_parser("hooks", help=help_of("hooks"))
    hooks_sub = p.add_subparsers(dest="hooks_command", metavar="ACTION", required=True)
    for name, func, text in (
        ("install", cmd_hooks_install, "add the hooks (Claude Code, --codex) or the MCP server (--mcp)"),
        ("uninstall", cmd_hooks_uninstall, "remove exactly what Threadback added"),
        ("status", cmd_hooks_status, "show what is installed (every agent and route without flags)"),
    ):
        hp = hooks_sub.add_parser(name, help=text)
        agent = hp.add_mutually_exclusive_group()
        agent.add_argument("--claude-code", action="store_true", help="Claude Code (the default for hooks)")
        agent.add_argument("--codex", action="store_true", help="Codex CLI: $CODEX_HOME/hooks.json (or its config.toml)")
        agent.add_argument("--pi", action="store_true", help=argparse.SUPPRESS)
        hp.add_argument("--mcp", action="store_true",
                        help="the MCP server `threadback mcp`, for Claude Code and Codex (or the one named)")
        scope = hp.add_mutually_exclusive_group()
        scope.add_argument("--user", action="store_true", help="the user's config (the default for install)")
        scope.add_argument("--project", action="store_true",
                           help="this project's: ./.claude/settings.json, ./.codex/, ./.mcp.json")
        scope.add_argument("--settings", metavar="PATH", help="this config file")
        if name == "install":
            hp.add_argument("--program", metavar="PATH", default="threadback",
                            help="the threadback executable the hooks run (default: threadback on PATH)")
        if name == "status":
            hp.add_argument("--json", action="store_true")
        hp.set_defaults(func=func)
    hp = hooks_sub.add_parser("print", help="the routing block for AGENTS.md (Codex, pi) or any agent's instruction file")
    agent = hp.add_mutually_exclusive_group(required=True)
    agent.add_argument("--codex", action="store_true")
    agent.add_argument("--pi", action="store_true")
    agent.add_argument("--claude-code", action="store_true", help="the hook entries, as JSON")
    agent.add_argument("--agent", metavar="NAME", help="the block for this agent's instruction file (gemini, qwen, ...)")
    hp.set_defaults(func=cmd_hooks_print)

    p = sub.add_parser("mcp", help=help_of("mcp"))
    add_index_options(p)
    p.add_argument("--memory-dir", dest="memory_dir", metavar="DIR", default=argparse.SUPPRESS,
                   help="memory folder (default: $THREADBACK_MEMORY_DIR, ./memory, or the global one)")
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("usage", help=help_of("usage"))
    p.add_argument("--days", type=int, default=14, help="days to cover, ending today (default 14)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_usage)


# -- context ------------------------------------------------------------------------------------
@agents_command
def cmd_context(args: argparse.Namespace) -> int:
    if args.max_bytes < 64:
        raise CommandError("--max-bytes must be at least 64", USAGE)
    folder = FolderContext(memory_dir_of(args), Path.cwd())  # the allow list applies
    now = datetime.now(timezone.utc)
    started = time.monotonic()
    material = material_from(run_all(folder.pieces(now=now)))
    text = render_context(material, max_bytes=args.max_bytes)
    record_call(args, UsageEvent(ts=now.timestamp(), kind="context", ms=(time.monotonic() - started) * 1000,
                                 by=caller_of()))
    if args.json:
        memory_dir = folder.memory.folder if folder.memory is not None else None
        print(output.dumps(output.context_json(memory_dir, folder.rules_dir, material, text, args.max_bytes)))
    elif text:
        sys.stdout.write(text)
    return OK


# -- hooks --------------------------------------------------------------------------------------
def _settings_path(args: argparse.Namespace) -> Path:
    if args.settings:
        return Path(args.settings).expanduser()
    if args.project:
        return project_settings_path()
    return user_settings_path()


def _refuse_non_claude(args: argparse.Namespace) -> None:
    if getattr(args, "pi", False):
        raise CommandError("pi loads instructions from AGENTS.md, not hooks: run "
                           "`threadback hooks print --pi` and paste the block into AGENTS.md")


def _change_hooks(
    args: argparse.Namespace,
    change_settings: Callable[[Path], HookChange],
    events: Callable[[HookChange], tuple[str, ...]],
    done: str,
    unchanged: str,
) -> int:
    """What install and uninstall share: refuse other agents, change the settings file, say
    what changed (``done``/``unchanged`` take ``{events}`` and ``{path}``)."""
    _refuse_non_claude(args)
    path = _settings_path(args)
    change = change_settings(path)
    if change.added or change.removed:
        print(done.format(events=", ".join(events(change)), path=path))
    if change.denied:
        print(f"denied to the agent in {path} (a guard against accidents, not a wall: see "
              "docs/agents.md): " + ", ".join(change.denied))
    if change.undenied:
        print(f"removed Threadback's deny rules from {path}: " + ", ".join(change.undenied))
    if change.changed and change.backup:
        print(f"previous version kept as {change.backup}")
    if not change.changed:
        print(unchanged.format(path=path))
    return OK


@agents_command
def cmd_hooks_install(args: argparse.Namespace) -> int:
    _refuse_non_claude(args)
    if args.mcp or args.codex:
        return agent_setup.install_mcp(args) if args.mcp else agent_setup.install_codex(args)
    code = _change_hooks(
        args, lambda path: install_hooks(path, program=args.program), lambda change: change.added,
        "added Threadback hooks for {events} to {path}",
        "Threadback hooks are already installed in {path}: nothing changed",
    )
    if code == OK and args.program == "threadback" and shutil.which("threadback") is None:
        say("threadback", "warning: `threadback` is not on PATH, so the hooks cannot run yet; put it on PATH or "
             "reinstall with --program /full/path/to/threadback")
    return code


@agents_command
def cmd_hooks_uninstall(args: argparse.Namespace) -> int:
    _refuse_non_claude(args)
    if args.mcp or args.codex:
        return agent_setup.uninstall_mcp(args) if args.mcp else agent_setup.uninstall_codex(args)
    return _change_hooks(
        args, uninstall_hooks, lambda change: change.removed,
        "removed Threadback hooks for {events} from {path}",
        "no Threadback hooks in {path}: nothing changed",
    )


@agents_command
def cmd_hooks_status(args: argparse.Namespace) -> int:
    _refuse_non_claude(args)
    return agent_setup.print_status(args)


@agents_command
def cmd_hooks_print(args: argparse.Namespace) -> int:
    if args.claude_code:
        print(json.dumps({"hooks": hook_entries()}, indent=2))
        return OK
    from indexer.sources import agent_by_name, agent_named

    name = agent_named(args.agent) if args.agent else ("codex" if args.codex else "pi")
    try:
        setup = setup_for(agent_by_name(name))
    except KeyError:
        raise CommandError(f"no agent named {safe_text(args.agent)!r} (see `threadback doctor` for the list)",
                           USAGE) from None
    sys.stdout.write(ROUTING_BLOCK)
    if sys.stdout.isatty():
        print("\n" + "-" * 72)
        print(setup)
    else:
        print(f"\n<!-- {' '.join(setup.split())} -->")
    return OK


# -- mcp ----------------------------------------------------------------------------------------
def cmd_mcp(args: argparse.Namespace) -> int:
    from tui.cli.mcp_server import cmd_mcp as serve  # the MCP SDK loads only for this command

    return serve(args)


# -- usage --------------------------------------------------------------------------------------
CALLER_NAMES = {YOU: "you (at a shell)", AGENT: "agents running the CLI", HOOK: "hooks"}


def callers_line(by_caller: dict[str, int]) -> str:
    """"you (at a shell) 3 · agents running the CLI 12 · hooks 40"."""
    return " · ".join(f"{CALLER_NAMES[who]} {by_caller.get(who, 0)}" for who in CALLERS)


def cmd_usage(args: argparse.Namespace) -> int:
    now = time.time()
    local = datetime.now().astimezone().tzinfo or timezone.utc
    report = usage_report(now, max(1, args.days), tz=local)
    if args.json:
        print(output.dumps({**report.to_json(), "log": str(usage_log_path())}))
        return OK
    print(f"Threadback usage, last {args.days} days ({usage_log_path()})")
    if not report.calls:
        print("  no calls logged yet: install the hooks (`threadback hooks install --claude-code`) "
              "or run `threadback search`")
        return OK
    kinds = ", ".join(f"{k} {n}" for k, n in report.by_kind.items())
    print(f"  {report.calls} calls ({kinds})")
    print(f"  by whom: {callers_line(report.by_caller)}")
    print(f"  searches: {report.queries}, with no hits: {report.zero_hits} ({report.zero_hit_rate:.0%})")
    if report.prompts_seen:
        print(f"  prompts checked: {report.prompts_seen}, pointed at past work: {report.prompts_fired}")
    print("\n  day          calls  searches  zero-hit    you  agents  hooks")
    for d in report.days:
        if d.calls:
            you, agents, hooks = (d.by_caller.get(who, 0) for who in CALLERS)
            print(f"  {d.day}  {d.calls:>5}  {d.queries:>8}  {d.zero_hits:>8}  {you:>5}  {agents:>6}  {hooks:>5}")
    if report.zero_hit_queries:
        print("\n  queries that found nothing:")
        for query, count in report.zero_hit_queries[:30]:
            print(f"  {count:>4}× {safe_text(query)}")
    return OK

"""``threadback hook EVENT``: what Claude Code and Codex run on their events (the flow is
``indexer.agents.hooks``; which agent called is read from the event, ``caller.hook_caller``).

Reads the event JSON on stdin and must never get in the agent's way: whatever goes wrong, it
prints nothing but its answer and exits 0 (``THREADBACK_DEBUG=1`` shows the traceback; a config
file that cannot be used is one line on stderr). Dispatched before the
full command line is built: hooks run on every prompt.
"""

from __future__ import annotations

import os
import sys
import time

from tui.cli.exits import OK
from tui.cli.verbs import help_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # argparse is loaded only to build the full parser (``tui.cli.parser``)
    import argparse
    from types import SimpleNamespace

EVENTS = ("session-start", "prompt", "refresh")


def add_hook_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("event", choices=EVENTS)
    p.add_argument("--text", action="store_true",
                   help="print plain text instead of the agent's hook JSON (for trying it out)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hook", help=help_of("hook"))
    add_hook_arguments(p)
    p.set_defaults(func=cmd_hook)


def run_hook(argv: list[str]) -> int:
    """``threadback hook EVENT`` without the full parser."""
    started = time.monotonic()  # the hook's budget counts from here, imports included
    import argparse

    parser = argparse.ArgumentParser(prog="threadback hook")
    add_hook_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        return OK  # a hook never fails the agent, not even on a bad command line
    args.started = started
    return cmd_hook(args)


def warn_of_a_broken_config() -> None:
    """A config file that cannot be used: one line on stderr (the agent shows a hook's stderr in
    its verbose view), and the hook goes on; it never needed a setting."""
    from indexer.config import ConfigError, check_config

    try:
        check_config()
    except ConfigError as exc:
        print(f"threadback: {exc}", file=sys.stderr)


def cmd_hook(args: argparse.Namespace | SimpleNamespace) -> int:  # SimpleNamespace: a quick_args line
    """Run one hook. Whatever happens: nothing on stdout but the finished answer, exit 0."""
    try:
        started = getattr(args, "started", None) or time.monotonic()
        from indexer.agents import hooks
        from indexer.agents.budget import hook_deadline
        from indexer.agents.caller import hook_caller
        from indexer.agents.usage import HOOK, record_usage
        from tui.cli.options import db_file_of  # a str: the prompt loads no pathlib

        try:
            payload = hooks.read_event(sys.stdin)
        except (ValueError, RecursionError):  # not JSON: answered as an event that said nothing
            payload = {}
        warn_of_a_broken_config()
        agent = hook_caller(payload)
        working = time.monotonic()  # the usage log times the work, as before; the budget all of it
        answer = hooks.answer(args.event, payload, db_path=db_file_of(args),
                              memory_dir=getattr(args, "memory_dir", None),
                              deadline=hook_deadline(started))
        if answer.usage is not None:
            record_usage(answer.usage._replace(ms=(time.monotonic() - working) * 1000, agent=agent, by=HOOK))
        if answer.text:
            out = answer.text if args.text else hooks.hook_output(agent, args.event, payload, answer.text)
            if out:
                sys.stdout.write(out if out.endswith("\n") else out + "\n")
                sys.stdout.flush()
    except BaseException:  # noqa: BLE001 - a hook must never break the agent
        if os.environ.get("THREADBACK_DEBUG"):
            import traceback  # loaded only here: it costs milliseconds on every prompt

            traceback.print_exc()
    return OK

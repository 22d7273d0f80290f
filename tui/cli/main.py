"""The ``threadback`` command: dispatch to a verb, or open the full-screen app without one.

Each command group registers itself from its own module (``tui.cli.index``, ``tui.cli.memory``,
``tui.cli.rules``, ``tui.cli.agents``), so this file stays a switchboard. Exit codes:
``tui.cli.exits``.
"""

from __future__ import annotations

import argparse
import sys

from tui.cli.exits import INTERRUPTED, OK


def _version() -> str:
    """The installed distribution's version (the source of truth is pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("threadback")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    from tui.cli import agents, index, memory, rules
    from tui.cli.options import add_global_options

    parser = argparse.ArgumentParser(
        prog="threadback",
        description="Search and remember your coding agents' history.",
    )
    parser.add_argument("--version", action="version", version=f"threadback {_version()}")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in (index, memory, rules, agents):
        group.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    if args_list[:1] == ["hook"]:
        # Hooks run on every prompt: skip building the whole parser (and its imports).
        from tui.cli.hook import run_hook

        return run_hook(args_list[1:])
    args = build_parser().parse_args(argv)
    try:
        if args.command is None:
            from tui.cli import launch

            return launch.launch(args)
        return int(args.func(args) or OK)
    except BrokenPipeError:
        # `threadback search ... | head` closes the pipe early: not an error.
        try:
            sys.stdout = None  # type: ignore[assignment]
        except Exception:
            pass
        return OK
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())

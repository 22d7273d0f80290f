"""The ``threadback`` command line: index, search, show, sessions, resume, events, memory, rules.

With no sub-command it opens the full-screen app. Each command group registers itself from
its own module (``tui.cli.index``, ``tui.cli.memory``, ``tui.cli.rules`` ...) so this file stays a switchboard.

Exit codes a script can rely on (see README):
  0 success; 1 nothing found; 2 bad usage or query; 3 index missing or damaged;
  4 not found (session, memory, rule); 5 refused (e.g. needs a terminal); 75 index busy.
"""

from __future__ import annotations

import argparse
import sys

EXIT_OK = 0
EXIT_NOTHING_FOUND = 1
EXIT_USAGE = 2
EXIT_INDEX = 3
EXIT_NOT_FOUND = 4
EXIT_REFUSED = 5
EXIT_BUSY = 75


def _version() -> str:
    """The installed distribution's version (the source of truth is pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("threadback")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    from tui.cli import index as cli_index

    parser = argparse.ArgumentParser(
        prog="threadback",
        description="Search and remember your coding agents' history.",
    )
    parser.add_argument("--version", action="version", version=f"threadback {_version()}")
    cli_index.add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    cli_index.register(sub)
    for module_name in ("tui.cli.memory", "tui.cli.rules", "tui.cli.agents"):
        try:
            module = __import__(module_name, fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    if args_list[:1] == ["hook"]:
        # Hooks run on every prompt: skip building the whole parser (and its imports).
        from tui.cli import agents as cli_agents

        return cli_agents.run_hook(args_list[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from tui.cli import index as cli_index

        return cli_index.run_app(args)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # `threadback search ... | head` closes the pipe early: not an error.
        try:
            sys.stdout = None  # type: ignore[assignment]
        except Exception:
            pass
        return EXIT_OK
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())

"""The ``threadback`` command: dispatch to a verb, or open the full-screen app without one.

Each command group registers itself from its own module (``tui.cli.index``, ``tui.cli.memory``,
``tui.cli.rules``, ``tui.cli.agents``), so this file stays a switchboard. Exit codes:
``tui.cli.exits``. Whatever a command did not expect ends here as one line and a saved trace
(``tui.cli.crash``), never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from tui.cli.exits import INTERRUPTED, OK

# Arguments that name files keep their bytes as the OS gave them (a folder name that is not
# UTF-8 must still be found); every other argument is text, made valid UTF-8 at once.
PATH_ARGUMENTS = {"db", "memory_dir", "rules_memory_dir", "claude_dir", "folder", "settings", "program", "source",
                  "restore_to", "file_path"}


def _version() -> str:
    """The installed distribution's version (the source of truth is pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("threadback")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    from tui.cli import agents, archive, export, files, index, memory, rules
    from tui.cli.options import add_global_options

    parser = argparse.ArgumentParser(
        prog="threadback",
        description="Search and remember your coding agents' history.",
    )
    parser.add_argument("--version", action="version", version=f"threadback {_version()}")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in (index, archive, files, export, memory, rules, agents):
        group.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    _safe_output()
    try:
        return _dispatch(argv)
    except SystemExit:
        raise
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
    except Exception as exc:  # noqa: BLE001 - the last resort: one line and a saved trace
        from tui.cli.crash import report_unexpected

        return report_unexpected(exc)


def _dispatch(argv: list[str] | None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    if args_list[:1] == ["hook"]:
        # Hooks run on every prompt: skip building the whole parser (and its imports).
        from tui.cli.hook import run_hook

        return run_hook(args_list[1:])
    args = build_parser().parse_args(argv)
    _text_arguments_as_utf8(args)
    if args.command is None:
        from tui.cli import launch

        return launch.launch(args)
    return int(args.func(args) or OK)


def _safe_output() -> None:
    """Text that cannot be written as UTF-8 (a lone surrogate from a log or a memory file) is
    printed escaped (``\\ud83d``, a valid JSON escape too) instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            pass


def _text_arguments_as_utf8(args: argparse.Namespace) -> None:
    """Replace bytes that are not UTF-8 in text arguments (a query, a summary) by U+FFFD."""
    from indexer.storable import storable

    changed = False
    for name, value in vars(args).items():
        if name in PATH_ARGUMENTS or name.startswith("dirs_"):
            continue
        if isinstance(value, str) and (fixed := storable(value)) != value:
            setattr(args, name, fixed)
            changed = True
        elif isinstance(value, list) and any(isinstance(v, str) and storable(v) != v for v in value):
            setattr(args, name, [storable(v) if isinstance(v, str) else v for v in value])
            changed = True
    if changed:
        print("threadback: warning: an argument held bytes that are not UTF-8; they were replaced by \ufffd",
              file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())

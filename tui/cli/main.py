"""The ``threadback`` command: dispatch to a verb, or open the full-screen app without one.

Each command group registers itself from its own module (``register(sub)``), named in
``tui.cli.verbs`` and imported only when one of its verbs runs: ``threadback search`` never
loads the memory store's YAML library or the MCP server. A new verb is one line there. A plain
``search`` or ``hook`` line is read by ``tui.cli.quick_args``; any other by the full parser
(``tui.cli.parser``). So this file stays a switchboard. Exit codes:
``tui.cli.exits``. Whatever a command did not expect ends here as one line and a saved trace
(``tui.cli.crash``), never a traceback.
"""

from __future__ import annotations

import os
import sys
import time

from tui.cli.exits import INTERRUPTED, OK
from tui.cli.quick_args import quick_parse
from tui.cli.verbs import VERBS  # noqa: F401 - the verb table, importable from here as before

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from types import SimpleNamespace

# Arguments that name files keep their bytes as the OS gave them (a folder name that is not
# UTF-8 must still be found); every other argument is text, made valid UTF-8 at once.
PATH_ARGUMENTS = {"db", "memory_dir", "rules_memory_dir", "claude_dir", "folder", "settings", "program", "source",
                  "restore_to", "file_path"}


def build_parser(argv: list[str] | None = None, *, every_verb: bool = False) -> argparse.ArgumentParser:
    """The full command line (``tui.cli.parser``, loaded only for a line that needs it)."""
    from tui.cli.parser import build_parser as build

    return build(argv, every_verb=every_verb)


def run() -> int:
    """The ``threadback`` command (and ``python -m tui.cli``): ``main``, then, after a plain
    ``search`` or ``hook`` line (``tui.cli.quick_args``), an exit that skips tearing the
    interpreter down (freeing every module and object: ~4 ms of each agent's call). Only when
    nothing is left to do at exit: output flushed, no thread started, no ``atexit`` callback;
    otherwise the code is returned for the usual exit."""
    global _quick_line
    _quick_line = False
    code = main()
    if _quick_line and "threading" not in sys.modules and _no_exit_callbacks():
        try:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
        except (OSError, ValueError):
            return code  # a closed pipe and the like: the usual exit reports it as before
        os._exit(code)
    return code


_quick_line = False  # set by ``_dispatch`` for a line ``quick_parse`` read


def _no_exit_callbacks() -> bool:
    import atexit  # built in: nothing to load

    count = getattr(atexit, "_ncallbacks", None)
    return count is not None and count() == 0


def main(argv: list[str] | None = None) -> int:
    _safe_output()
    try:
        return _dispatch(argv)
    except SystemExit:
        raise
    except BrokenPipeError:
        # `threadback search ... | head` closes the pipe early: not an error.
        try:
            sys.stdout = None
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
    global _quick_line
    args_list = sys.argv[1:] if argv is None else argv
    started = time.monotonic()  # a hook's budget counts from here, imports included
    quick = quick_parse(args_list)
    if quick is not None:
        # The hot verbs' plain lines skip building the parser (``tui.cli.quick_args``).
        _quick_line = True
        verb, namespace = quick
        if verb == "hook":
            from tui.cli.hook import cmd_hook

            namespace.started = started
            return cmd_hook(namespace)
        from tui.cli.index import cmd_search

        namespace.func = cmd_search
        _text_arguments_as_utf8(namespace)
        return int(namespace.func(namespace) or OK)
    if args_list[:1] == ["hook"]:
        # Hooks run on every prompt: skip building the whole parser (and its imports).
        from tui.cli.hook import run_hook

        return run_hook(args_list[1:])
    args = build_parser(args_list).parse_args(args_list)
    _text_arguments_as_utf8(args)
    if args.command is None:
        from tui.cli import open_app as launch

        return launch.launch(args)
    return int(args.func(args) or OK)


def _safe_output() -> None:
    """Text that cannot be written as UTF-8 (a lone surrogate from a log or a memory file) is
    printed escaped (``\\ud83d``, a valid JSON escape too) instead of raising.

    A stream the command was started without (``2>&-``; Python then makes it None) writes
    nowhere: a message meant for stderr would otherwise go to stdout (``print(file=None)``), into
    the JSON a script reads, and a progress line's ``isatty()`` would fail."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]  # a TextIO without it: caught
        except (AttributeError, ValueError, OSError):
            pass


def _text_arguments_as_utf8(args: argparse.Namespace | SimpleNamespace) -> None:
    """Replace bytes that are not UTF-8 in text arguments (a query, a summary) by U+FFFD."""
    from indexer.text.storable import storable

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
    raise SystemExit(run())

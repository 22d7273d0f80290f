"""``threadback export SESSION [--format md|html|json] [-o FILE]``: a session (with its
subagents) as compact Markdown for another agent, one self-contained HTML file for people, or
``show --json``'s JSON. Secrets are masked unless ``--show-secrets``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from indexer.export import collect_export
from tui.cli.exits import OK, USAGE, CommandError
from tui.cli.index import SHOW_SECRETS_HELP, index_command, open_chosen_session
from tui.cli.options import add_index_options
from tui.session_export import FORMATS, format_for, render_export, write_export
from tui.cli.verbs import help_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help=help_of("export"))
    add_index_options(p)
    p.add_argument("session", help="session id (or a unique prefix, or agent:id)")
    p.add_argument("--format", "-f", choices=FORMATS, help="md, html or json (default: from -o's extension, else md)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    p.add_argument("--show-secrets", action="store_true", help=SHOW_SECRETS_HELP)
    p.set_defaults(func=cmd_export)


@index_command
def cmd_export(args: argparse.Namespace) -> int:
    target = Path(args.output).expanduser() if args.output and args.output != "-" else None
    fmt = args.format or (format_for(target) if target else None) or "md"
    if target is not None and target.is_dir():
        raise CommandError(f"{target} is a folder: give a file name to -o", USAGE)
    if target is not None and not target.parent.is_dir():  # bad usage, as the README's codes say
        raise CommandError(f"no folder {target.parent}: create it first, or give -o a file in a folder that exists",
                           USAGE)
    index, session = open_chosen_session(args, "export")
    text = render_export(collect_export(index, session, reveal_secrets=args.show_secrets), fmt, now=time.time())
    index.close()
    if target is None:
        sys.stdout.write(text)
        return OK
    try:
        write_export(target, text)
    except OSError as exc:
        raise CommandError(f"cannot write {target}: {exc.strerror or exc}", write_error_code(exc)) from None
    print(f"wrote {target} ({fmt}, {len(text.encode('utf-8', 'surrogateescape')):,} bytes)", file=sys.stderr)
    return OK


def write_error_code(exc: OSError) -> int:
    import errno

    from tui.cli.exits import DISK_FULL, READ_ONLY

    if exc.errno == errno.ENOSPC:
        return DISK_FULL
    if exc.errno == errno.ENOENT:  # the folder went away meanwhile
        return USAGE
    return READ_ONLY

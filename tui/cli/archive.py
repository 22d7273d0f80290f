"""``threadback restore SESSION``: a session's log written back from the archive, so its agent
can resume it after the agent's own cleanup deleted it (see ``indexer.archive``)."""

from __future__ import annotations

import argparse

from indexer.output import json_shapes as output
from tui.cli.exits import OK, command
from tui.cli.index import find_session
from tui.cli.options import add_index_options, open_existing_index
from tui.cli.terminal import safe_text
from tui.cli.verbs import help_of

archive_command = command()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("restore", help=help_of("restore"))
    p.add_argument("session", help="session id (or a unique prefix, or agent:id)")
    p.add_argument("--to", dest="restore_to", metavar="PATH", help="write it here instead of its original path")
    p.add_argument("--force", action="store_true", help="replace a different file already at that path")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_index_options(p)
    p.set_defaults(func=cmd_restore)


@archive_command
def cmd_restore(args: argparse.Namespace) -> int:
    index = open_existing_index(args)
    session = find_session(index, args.session)
    restored = index.restore(session, to=args.restore_to, force=args.force)
    if args.json:
        print(output.dumps({"session": output.session_json(session), "path": restored.path,
                            "bytes": restored.bytes, "unchanged": restored.unchanged}))
    elif restored.unchanged:
        print(safe_text(f"{restored.path} is already there, identical to the archived copy"))
    else:
        print(safe_text(f"restored {restored.path} ({restored.bytes:,} bytes, checked against the archive)"))
    return OK

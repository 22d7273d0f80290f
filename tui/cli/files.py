"""``threadback files PATH``: the sessions whose tool calls read, edited, wrote or deleted a
file (or named it in a shell command), newest first."""

from __future__ import annotations

import argparse
import os
import sys

from indexer.output.masking import masked_session
from indexer.output import json_shapes as output
from tui.cli.exits import NOTHING_FOUND, OK, command
from tui.cli.options import add_index_options, open_existing_index
from tui.cli.render import local_time
from tui.cli.terminal import safe_text
from tui.cli.verbs import help_of

files_command = command()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("files", help=help_of("files"))
    p.add_argument("file_path", metavar="PATH",
                   help="the file: absolute, relative to the current folder, or a suffix such as src/app.py")
    p.add_argument("--json", action="store_true", help="print the sessions as JSON")
    add_index_options(p)
    p.set_defaults(func=cmd_files)


def _as_text(name: str) -> str:
    """A path as the index stores paths (from the agents' JSON logs, always valid UTF-8): bytes
    that are not UTF-8 become U+FFFD, with a warning, as ``search`` does with its words."""
    from indexer.text.storable import storable

    text = storable(name)
    if text != name:
        print(f"threadback: warning: {safe_text(text)} held bytes that are not UTF-8; "
              "they were replaced by \ufffd", file=sys.stderr)
    return text


@files_command
def cmd_files(args: argparse.Namespace) -> int:
    index = open_existing_index(args)
    path, cwd = _as_text(os.fsdecode(args.file_path)), _as_text(os.getcwd())
    touches = index.files_touched(path, cwd=cwd)
    if args.json:
        print(output.dumps([{"session": output.session_json(masked_session(t.session)), "path": t.path,
                             "kinds": list(t.kinds), "calls": t.count, "last": output.iso(t.last_ts)}
                            for t in touches]))
        return OK if touches else NOTHING_FOUND
    if not touches:
        print(safe_text(f"no session touched {path} (paths come from tool calls: read, edit, write, patch, shell)"))
        return NOTHING_FOUND
    for t in touches:
        s = masked_session(t.session)
        title = safe_text((s.title or "").splitlines()[0] if s.title else "")[:60]
        print(f"{local_time(t.last_ts)}  {s.agent:<11} {safe_text(s.session_id)[:36]:<36} "
              f"{'/'.join(t.kinds):<12} {t.count:>3}x  {safe_text(t.path)}")
        if title:
            print(f"    {title}")
    return OK

"""``threadback blame FILE[:LINE[-LINE]]``: beside each line of a file, the session and the tool
call whose edit last wrote it (``indexer.provenance.blame``); lines no session wrote say so."""

from __future__ import annotations

import argparse
import os
import re

from indexer.output.masking import masked_session
from indexer.provenance.blame import Blame, BlameLine, blame_file
from indexer.output import json_shapes as output
from tui.cli.exits import OK, USAGE, command
from tui.cli.options import add_index_options, open_existing_index
from tui.cli.render import local_time
from tui.cli.terminal import safe_text
from tui.cli.verbs import help_of

blame_command = command()
_RANGE = re.compile(r"^(.*?):(\d+)(?:-(\d+))?$")
NOBODY = "(no session)"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("blame", help=help_of("blame"))
    p.add_argument("target", metavar="FILE[:LINE[-LINE]]", help="the file, optionally with a line or a range of lines")
    p.add_argument("--json", action="store_true", help="print the lines as JSON")
    p.add_argument("--no-git", action="store_true", help="do not narrow by git's blame even in a work tree")
    add_index_options(p)
    p.set_defaults(func=cmd_blame)


def split_target(target: str) -> tuple[str, int | None, int | None]:
    """``path:12`` or ``path:12-20`` -> (path, first, last); a path that exists as written wins."""
    m = _RANGE.match(target)
    if not m or os.path.exists(target):
        return target, None, None
    first = int(m.group(2))
    last = int(m.group(3)) if m.group(3) else first
    return m.group(1), first, last


@blame_command
def cmd_blame(args: argparse.Namespace) -> int:
    path, first, last = split_target(os.fsdecode(args.target))
    if first is not None and (first < 1 or (last or first) < first):
        print(safe_text(f"threadback: error: {args.target}: lines are numbered from 1, first to last"))
        return USAGE
    index = open_existing_index(args)
    blame = blame_file(index, path, use_git=not args.no_git)
    lines = [line for line in blame.lines
             if first is None or first <= line.number <= (last or first)]
    if args.json:
        print(output.dumps({"path": blame.path, "git": blame.git, "sessions_considered": blame.sessions_considered,
                            "lines": [line_json(line) for line in lines]}))
        return OK
    _print(blame, lines)
    return OK


def line_json(line: BlameLine) -> dict:
    s = masked_session(line.session) if line.session else None
    return {"line": line.number, "text": line.text,
            "session": output.session_json(s) if s else None,
            "message": ({"id": line.message.id, "ordinal": line.message.ordinal, "tool": line.message.tool_name,
                         "time": output.iso(line.message.ts)} if line.message else None),
            "certain": line.certain,
            "commit": ({"sha": line.commit.sha, "author": line.commit.author} if line.commit else None)}


def who_wrote(line: BlameLine) -> str:
    """The short label beside a line: agent, session id, the call's time (``?`` when unsure)."""
    if line.session is None or line.message is None:
        return NOBODY
    mark = "" if line.certain else "?"
    return f"{line.session.agent[:6]} {line.session.session_id[:8]} {local_time(line.message.ts)}{mark}"


def _print(blame: Blame, lines: list[BlameLine]) -> None:
    width = len(str(lines[-1].number)) if lines else 1
    for line in lines:
        print(f"{who_wrote(line):<35} {line.number:>{width}}  {safe_text(line.text)}")
    written = sum(1 for line in lines if line.session)
    note = "git narrowed the candidates" if blame.git else "no git work tree: attributed from the logs alone"
    unsure = sum(1 for line in lines if line.session and not line.certain)
    tail = f"; {unsure} marked ? were written or kept by a whole-file write" if unsure else ""
    sessions = len({line.session.id for line in lines if line.session})
    print(safe_text(f"-- {written} of {len(lines)} lines written by {sessions} session(s)"
                    f" of {blame.sessions_considered} that changed {blame.path} ({note}{tail})"))

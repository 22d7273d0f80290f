"""``threadback memory allow | disallow | allowed``: which project memory folders agents get.

A project's ``./memory/`` may be a cloned repository's: hooks and ``context`` leave it out until
you allow it (``indexer.memory.trust``). Allowing is a trust decision like approving a rule, so
it lists what is in the folder and needs you at a terminal: not a pipe, not an agent.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import datetime
from pathlib import Path

from indexer.config import PROJECT, MemoryFolder, project_memory_dir
from indexer.memory.trust import (
    ALLOWED,
    allow_folder,
    allowed_folders,
    disallow_folder,
    folder_entries,
    folder_summary,
    folder_trust,
)
from indexer.rules.review import approval_refusal
from tui.cli.exits import NOT_FOUND, OK, REFUSED, USAGE, CommandError, command
from tui.cli.passphrase import unlock_at_terminal
from tui.cli.review import is_terminal
from tui.cli.terminal import safe_text

allow_command = command(prefix="threadback memory")


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser("allow", help="let agents use a project's memory/ folder (asks first)")
    p.add_argument("folder", nargs="?", metavar="DIR", help="the folder (default: ./memory)")
    p.set_defaults(func=cmd_allow)
    p = actions.add_parser("disallow", help="stop agents using a project's memory/ folder")
    p.add_argument("folder", nargs="?", metavar="DIR", help="the folder (default: ./memory)")
    p.set_defaults(func=cmd_disallow)
    p = actions.add_parser("allowed", help="list the memory folders you allowed")
    p.set_defaults(func=cmd_allowed)


def _folder(args: argparse.Namespace) -> MemoryFolder:
    if args.folder:
        path = Path(args.folder).expanduser()
    else:
        path = project_memory_dir(Path.cwd())
    if not path.is_dir():
        raise CommandError(f"no memory folder at {safe_text(str(path))}", NOT_FOUND)
    return MemoryFolder(path, "named on the command line", PROJECT)


def _listing(folder: MemoryFolder) -> list[str]:
    lines = [f"  {safe_text(entry.describe())}" for entry in folder_entries(folder.path)]
    lines += [f"  {safe_text(line)}" for line in folder_summary(folder.path)]
    return lines or ["  (no memory files)"]


@allow_command
def cmd_allow(args: argparse.Namespace) -> int:
    folder = _folder(args)
    interactive = is_terminal(sys.stdin) and is_terminal(sys.stdout)
    if not interactive:
        raise CommandError("allowing a memory folder needs you at an interactive terminal "
                           "(stdin and stdout a TTY); it cannot be piped or scripted", REFUSED)
    refusal = approval_refusal(os.environ)
    if refusal:
        raise CommandError(refusal.replace("approval", "allowing a memory folder", 1), REFUSED)
    print(f"{safe_text(str(folder.path.resolve()))} holds:")
    print("\n".join(_listing(folder)))
    print("Allowed, its facts, scratchpad and episodic entries go to your agents as reference "
          "data, and its rules you approved count as rules, until rules.jsonl changes outside "
          "Threadback.")
    try:
        answer = input("Allow this folder? [y/N]: ").strip().lower()
    except EOFError:
        answer = ""
    if answer != "y":
        print("not allowed")
        return REFUSED
    try:
        refused = unlock_at_terminal(sys.stdout)
    except EOFError:
        refused = "no passphrase was typed"
    if refused:
        raise CommandError(f"not allowed: {refused}", REFUSED)
    allow_folder(folder.path, now=time.time())
    print(f"allowed {safe_text(str(folder.path.resolve()))}")
    return OK


@allow_command
def cmd_disallow(args: argparse.Namespace) -> int:
    folder = _folder(args)
    if disallow_folder(folder.path):
        print(f"agents no longer get {safe_text(str(folder.path.resolve()))}")
        return OK
    print(f"{safe_text(str(folder.path.resolve()))} was not allowed", file=sys.stderr)
    return USAGE


@allow_command
def cmd_allowed(args: argparse.Namespace) -> int:
    records = allowed_folders()
    if not records:
        print("no memory folders allowed (a project's ./memory/ is left out until you allow it)")
        return OK
    for path, allowed_at in records:
        state = folder_trust(MemoryFolder(path, "", PROJECT)).state if path.is_dir() else "missing"
        when = datetime.fromtimestamp(allowed_at).strftime("%Y-%m-%d %H:%M") if allowed_at else "?"
        mark = "" if state == ALLOWED else f"  ({state})"
        print(f"{when}  {safe_text(str(path))}{mark}")
    return OK

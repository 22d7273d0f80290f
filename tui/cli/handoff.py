"""``threadback handoff SESSION --to AGENT [--print]``: brief another agent on a session
(``indexer.provenance.handoff``) and start it in the session's folder with the brief as its
first prompt, or print the brief."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from indexer.agents.launch_argv import launch_problem
from indexer.provenance.handoff import BUDGET_TOKENS, build_brief, plan_handoff
from indexer.sources import BY_NAME
from indexer.output import json_shapes as output
from tui.cli.exits import NOT_FOUND, OK, USAGE, CommandError, command
from tui.cli.options import add_index_options, memory_dir_of, open_existing_index
from tui.cli.terminal import safe_text
from tui.cli.verbs import help_of

handoff_command = command()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("handoff", help=help_of("handoff"))
    p.add_argument("session", metavar="SESSION", help="session id (a unique prefix, or agent:id)")
    p.add_argument("--to", required=True, choices=sorted(BY_NAME), help="the agent to hand the work to")
    p.add_argument("--print", action="store_true", help="print the brief instead of starting the agent")
    p.add_argument("--json", action="store_true", help="with --print: the brief and its token counts as JSON")
    p.add_argument("--budget", type=int, default=BUDGET_TOKENS, help=f"tokens the brief may take (default {BUDGET_TOKENS})")
    p.add_argument("--memory-dir", metavar="DIR", default=argparse.SUPPRESS, help="memory folder for rules and facts")
    add_index_options(p)
    p.set_defaults(func=cmd_handoff)


def _memory_dir(args: argparse.Namespace, folder: str | None) -> Path | None:
    from indexer.memory import MemoryStore

    cwd = Path(folder) if folder and os.path.isdir(folder) else None
    return MemoryStore.open(memory_dir_of(args), cwd).folder


@handoff_command
def cmd_handoff(args: argparse.Namespace) -> int:
    index = open_existing_index(args)
    session = index.session(args.session)
    if session is None:
        raise CommandError(f"no session {args.session!r} in the index", NOT_FOUND)
    if args.budget < 200:
        raise CommandError("--budget: give at least 200 tokens", USAGE)
    brief = build_brief(index, session, memory_dir=_memory_dir(args, session.resume_cwd or session.project_path),
                        budget=args.budget)
    if args.print:
        if args.json:
            print(output.dumps({"session": session.session_id, "agent": args.to, "tokens": brief.tokens,
                                "transcript_tokens": brief.transcript_tokens, "brief": brief.text}))
        else:
            print(safe_text(brief.text))
            print(safe_text(f"-- about {brief.tokens} tokens (the whole transcript: about {brief.transcript_tokens})"),
                  file=sys.stderr)
        return OK
    launch = plan_handoff(session, args.to, brief)
    problem = launch_problem(launch)
    if problem is not None:
        raise CommandError(f"{problem} (threadback handoff {session.session_id} --to {args.to} --print "
                           "prints the brief to paste by hand)", NOT_FOUND)
    index.close()
    program = shutil.which(launch.program)
    assert program is not None  # launch_problem checked it
    print(safe_text(f"threadback: handing {session.session_id} to {args.to} in {launch.cwd}"), file=sys.stderr, flush=True)
    return subprocess.run([program, *launch.argv[1:]], cwd=launch.cwd, check=False).returncode

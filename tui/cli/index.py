"""``threadback index | search | show | sessions | resume | events``: the session index from a shell.

Each command parses, calls ``indexer``, and prints (``tui.cli.render`` for people,
``indexer.output.json_shapes`` for ``--json``).
"""

from __future__ import annotations

import sys
import time

from indexer import (
    Index,
    Session,
    parse_query,
)
from indexer.agents.caller import calling_session
from indexer.agents.usage import UsageEvent, caller_of
from indexer.output.masking import masked_message, masked_result, masked_session
from indexer.models import KINDS
from indexer.search import filters
from indexer.search.query import parse_date
from indexer.sources import AGENT_NAMES, agent_named
from indexer.output import json_shapes as output
from tui.cli.exits import (
    NOT_FOUND,
    NOTHING_FOUND,
    OK,
    CommandError,
   
    command,
)
from tui.cli.options import add_index_options, db_path_of, open_existing_index, record_call, roots_of
from tui.cli.render import ProgressLine, format_message, render_hits_text, session_header, session_line
from tui.cli.terminal import Style, safe_text
from tui.cli.verbs import help_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # argparse is loaded only to build the full parser (``tui.cli.parser``)
    import argparse

    from indexer import IndexStats, IndexSummary, SourceRoots


index_command = command()


SHOW_SECRETS_HELP = "show API keys, tokens and passwords in full (masked by default)"


def register(sub: argparse._SubParsersAction) -> None:
    import argparse

    from tui.cli.pasted_query import PastedQueryParser  # argparse: loaded to build the full parser only

    p = sub.add_parser("index", help=help_of("index"))
    add_index_options(p)
    p.add_argument("--rebuild", action="store_true", help="delete the index and build it again")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress, only problems")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--problems", action="store_true",
                   help="list the log files that could not be indexed (skipped until they change), and stop")
    p.add_argument("--compact", action="store_true",
                   help="rewrite the index smaller (packed tool output as references into the archive, 16 KB pages,"
                        " no free space; needs its size free on disk), and stop")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help=help_of("search"), formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="filters (inside the query):\n" + "\n".join(
                           "  " + line for line in filters.help_lines()))
    p.__class__ = PastedQueryParser  # `threadback search nginx -s reload` works unquoted
    add_index_options(p)
    p.add_argument("query", nargs="*", help="the query (a pasted command line works as it is)")
    p.add_argument("-n", "--limit", type=int, default=20, help="hits to show (default 20)")
    p.add_argument("--offset", type=int, default=0, help="skip this many hits (paging)")
    p.add_argument("--sessions", "-1", "--one-per-session", dest="sessions", action="store_true",
                   help="sessions, not messages: every word somewhere in one session; each with its best messages")
    p.add_argument("--exclude-session", action="append", default=[], metavar="ID", help="leave out a session (repeatable)")
    p.add_argument("-C", "--context", type=int, default=0, metavar="N", help="N messages before and after each hit")
    p.add_argument("--budget", type=int, default=0, metavar="BYTES", help="stop output at about this many bytes")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.add_argument("--show-secrets", action="store_true", help=SHOW_SECRETS_HELP)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("show", help=help_of("show"))
    add_index_options(p)
    p.add_argument("session", help="session id (or a unique prefix, or agent:id)")
    p.add_argument("--around", type=int, metavar="MESSAGE_ID", help="only a window around this message")
    p.add_argument("-C", "--context", type=int, default=5, metavar="N", help="window size with --around (default 5)")
    p.add_argument("--full", action="store_true", help="show tool results and injected text in full")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.add_argument("--show-secrets", action="store_true", help=SHOW_SECRETS_HELP)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("sessions", help=help_of("sessions"))
    add_index_options(p)
    p.add_argument("--agent", help=", ".join(AGENT_NAMES))
    p.add_argument("--project", help="project name or path contains this")
    p.add_argument("--since", help="date or relative (7d, 3h)")
    p.add_argument("--until", help="date or relative")
    p.add_argument("--all", action="store_true", help="include subagent sessions")
    p.add_argument("-n", "--limit", type=int, default=50)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_sessions)

    p = sub.add_parser("resume", help=help_of("resume"))
    add_index_options(p)
    p.add_argument("session")
    p.add_argument("--exec", action="store_true", help="run the agent in the session's folder (config: [resume.<agent>])")
    p.add_argument("--fork", action="store_true", help="fork the session instead (agents that can: Claude Code)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_resume)

    p = sub.add_parser("events", help=help_of("events"))
    add_index_options(p)
    p.add_argument("--since", help="date or relative (7d, 3h)")
    p.add_argument("--until", help="date or relative")
    p.add_argument("--kind", action="append", choices=KINDS, default=[], help="only these kinds (repeatable)")
    p.add_argument("--tool", action="append", default=[], help="only calls/results of this tool (repeatable)")
    p.add_argument("--agent")
    p.add_argument("--session", help="only this session")
    p.add_argument("--show-secrets", action="store_true", help=SHOW_SECRETS_HELP)
    p.set_defaults(func=cmd_events)


# -- index ---------------------------------------------------------------------------
@index_command
def cmd_index(args: argparse.Namespace) -> int:
    path = db_path_of(args)
    if args.problems:
        return show_problems(args)
    if args.compact:
        from tui.cli.compact import compact_and_report

        return compact_and_report(path, as_json=args.json, quiet=args.quiet)
    roots = roots_of(args)
    index = Index(path)
    note_a_failed_last_run(index, as_json=args.json)
    summary = update_with_progress(index, roots, args)
    for problem in summary.problems:
        print(f"threadback: warning: {problem}", file=sys.stderr)
    stats = index.stats()
    index.close()
    if args.json:
        print(output.dumps(output.index_run_json(str(path), summary, stats)))
    elif not args.quiet:
        print_index_summary(summary, stats, roots)
    print_closing_warnings(summary)
    return OK


def note_a_failed_last_run(index: Index, *, as_json: bool) -> None:
    """A hook's or the app's run fails where nobody sees it: the next run in a shell says so."""
    previous = index.last_run()
    if previous is not None and not previous.ok and not as_json:
        who = {"hook": "a hook's background run", "app": "the app's run"}.get(previous.where, "the last run")
        print(f"threadback: note: {who} failed: {safe_text(previous.message)}", file=sys.stderr)


def update_with_progress(index: Index, roots: SourceRoots, args: argparse.Namespace) -> IndexSummary:
    """``--rebuild`` first, then the update, with a progress line only where a person watches stderr."""
    if args.rebuild:
        index.delete_files()
    reporter = ProgressLine() if sys.stderr.isatty() and not args.quiet and not args.json else None
    try:
        return index.update(roots, progress=reporter, where="cli")
    finally:
        if reporter:
            reporter.clear()


def print_index_summary(summary: IndexSummary, stats: IndexStats, roots: SourceRoots) -> None:
    """The summary line for people, after a hint on where to look when there was nothing at all."""
    if not summary.files_seen and not stats.sessions:
        where = ", ".join(str(p) for p in roots.all_paths())
        print(f"no agent logs found (looked in {where}); try `threadback --demo`", file=sys.stderr)
    print(index_summary_line(summary, stats))


def index_summary_line(summary: IndexSummary, stats: IndexStats) -> str:
    """"1,234 files (...) · 56 sessions · 7,890 messages (+12) · 3.4 MB read in 0.52 s"."""
    return (
        f"{summary.files_seen:,} files ({summary.files_new:,} new, {summary.files_appended:,} grown, "
        f"{summary.files_reindexed:,} rewritten, {summary.files_missing:,} gone"
        f"{f', {summary.files_returned:,} back' if summary.files_returned else ''}) · "
        f"{stats.sessions:,} sessions · {stats.messages:,} messages "
        f"(+{summary.messages_added:,}) · {summary.bytes_read / 1e6:.1f} MB read in {summary.seconds:.2f} s"
        f"{archive_note(summary)}"
    )


def print_closing_warnings(summary: IndexSummary) -> None:
    """Printed last, even with ``--json`` or ``--quiet``, so they stay on screen: failing files,
    logs at risk of deletion."""
    if summary.failing_note:
        print(f"threadback: {summary.failing_note}", file=sys.stderr)
    for warning in summary.retention_warnings:
        print(f"threadback: warning: {safe_text(warning)}", file=sys.stderr)


def archive_note(summary) -> str:
    """" · archive 12.3 MB (405 logs)", or "" when nothing is archived."""
    if not summary.archive_files:
        return ""
    return f" · archive {summary.archive_bytes / 1e6:.1f} MB ({summary.archive_files:,} logs)"


def show_problems(args: argparse.Namespace) -> int:
    """``index --problems``: the files still failing, one ``path:line: reason`` each."""
    index = open_existing_index(args)
    failing = index.failing_files()
    last = index.last_run()
    if last is not None and not last.ok and not args.json:
        print(safe_text(f"the last index run failed: {last.message}"))
    if args.json:
        print(output.dumps([{"path": f.path, "agent": f.agent, "line": f.line, "reason": f.reason,
                             "failed_at": f.failed_at} for f in failing]))
    elif not failing:
        print("no log file is failing: every file found was indexed")
    else:
        for f in failing:
            print(safe_text(str(f)))
        print(f"{len(failing):,} file(s) skipped until they change; `threadback index` tries them again then")
    return OK


# -- search ----------------------------------------------------------------------------
@index_command
def cmd_search(args: argparse.Namespace) -> int:
    text = " ".join(args.query)
    if not text.strip():
        raise CommandError("give something to search for: threadback search WORDS")
    index = open_existing_index(args)
    started = time.monotonic()
    query = parse_query(text, time.time())
    excluded = tuple(args.exclude_session) or calling_session()
    result = index.search(
        query,
        limit=max(1, args.limit),
        offset=max(0, args.offset),
        by_session=args.sessions,
        exclude_sessions=excluded,
        context=max(0, args.context),
    )
    if not args.json:
        for warning in result.warnings:
            print(f"threadback: warning: {warning}", file=sys.stderr)
        for note in result.notes:
            print(f"threadback: note: {safe_text(note)}", file=sys.stderr)
    record_call(args, UsageEvent(ts=time.time(), kind="search", query=text, hits=result.total,
                                 excluded=excluded, ms=(time.monotonic() - started) * 1000, by=caller_of()))
    if not args.show_secrets:
        result = masked_result(result)
    if args.json:
        print(output.dumps(output.search_json(result, budget=args.budget)))
    elif result.hits:
        sys.stdout.write(render_hits_text(result, Style.for_stream(sys.stdout), budget=args.budget))
    else:
        print(f"no hits for {safe_text(text)!r}.")
        for step in result.tried:
            print(f"  tried: {safe_text(step)}")
        for left in result.not_searched:
            print(f"  not searched: {safe_text(left)}")
        from indexer.search.suggestions import suggestions_for  # what to try, when nothing was found

        for tip in suggestions_for(result.query):
            print(f"  try: {tip}")
    index.close()
    return OK if result.hits else NOTHING_FOUND


# -- show ------------------------------------------------------------------------------
def find_session(index: Index, ref: str) -> Session:
    session = index.session(ref)
    if session is None:
        raise CommandError(f"no session matches {ref!r} (see `threadback sessions`)", NOT_FOUND)
    return session


def open_chosen_session(args: argparse.Namespace, kind: str) -> tuple[Index, Session]:
    """The index and ``args.session``, logged as the session a search led to."""
    index = open_existing_index(args)
    session = find_session(index, args.session)
    record_call(args, UsageEvent(ts=time.time(), kind=kind, chosen=session.session_id, by=caller_of()))
    return index, session


@index_command
def cmd_show(args: argparse.Namespace) -> int:
    index, session = open_chosen_session(args, "show")
    if args.around is not None:
        center = index.message(args.around)
        if center is None or center.session_rowid != session.id:
            raise CommandError(f"message {args.around} is not in session {session.session_id}", NOT_FOUND)
        before, after = index.context(center, args.context, args.context)
        messages = [*before, center, *after]
    else:
        messages = index.messages(session)
    if not args.show_secrets:
        session = masked_session(session)  # its title is printed in the header
        messages = [masked_message(m) for m in messages]
    if args.json:
        print(output.dumps({"session": output.session_json(session),
                            "messages": [output.message_json(m) for m in messages]}))
        return OK
    style = Style.for_stream(sys.stdout)
    out = [style.bold(safe_text(session_header(session)))]
    for m in messages:
        out.append(format_message(m, style, full=args.full, mark=(m.id == args.around)))
    sys.stdout.write("\n".join(out) + "\n")
    return OK


# -- sessions / resume / events ----------------------------------------------------------
def time_range(args: argparse.Namespace) -> tuple[float | None, float | None]:
    """``--since``/``--until`` as epoch seconds."""
    bounds = []
    for value, end in ((args.since, False), (args.until, True)):
        ts = None if value is None else parse_date(value, time.time(), end_of_day=end)
        if value is not None and ts is None:
            raise CommandError(f"{value!r} is not a date (try 2026-04-02, 7d, 3h, 2w, yesterday)")
        bounds.append(ts)
    return bounds[0], bounds[1]


@index_command
def cmd_sessions(args: argparse.Namespace) -> int:
    index = open_existing_index(args)
    since, until = time_range(args)
    agent = agent_named(args.agent) if args.agent else None
    parent = ... if args.all else None  # ``...``: any parent (subagents too); None: top-level sessions only
    sessions = index.sessions(agent=agent, project=args.project, since=since, until=until, limit=args.limit,
                              parent=parent)
    sessions = [masked_session(s) for s in sessions]  # a title is a first prompt; `show --show-secrets` reveals
    if args.json:
        now = time.time()
        print(output.dumps([output.session_json(s, now) for s in sessions]))
    else:
        style = Style.for_stream(sys.stdout)
        for s in sessions:
            print(session_line(s, style))
    return OK if sessions else NOTHING_FOUND


@index_command
def cmd_resume(args: argparse.Namespace) -> int:
    index, session = open_chosen_session(args, "resume")
    if args.exec:
        from tui.cli.resume_exec import exec_launch

        return exec_launch(index, session, fork=args.fork)
    if args.fork:
        from tui.cli.resume_exec import fork_line

        command_line = fork_line(index, session)
    else:
        from indexer.agents.launch_argv import resume_line

        command_line = resume_line(session, index.parent(session))
    warn_if_the_log_is_gone(index, session)
    if args.json:
        print(output.dumps({"session": output.session_json(session), "command": command_line,
                            "cwd": session.project_path}))
    else:
        print(safe_text(command_line))
    return OK


def warn_if_the_log_is_gone(index: Index, session: Session) -> None:
    """The printed command would fail on a deleted log: say so, and how to bring it back."""
    import os

    from indexer.agents.launch_argv import launch_target, log_gone_note

    target, target_id = launch_target(session, index.parent(session))
    if target.session_id == target_id and target.source_path and not os.path.exists(target.source_path):
        print(f"threadback: note: {safe_text(log_gone_note(target.source_path, target_id))}", file=sys.stderr)


@index_command
def cmd_events(args: argparse.Namespace) -> int:
    index = open_existing_index(args)
    since, until = time_range(args)
    session_rowid = find_session(index, args.session).id if args.session else None
    agent = agent_named(args.agent) if args.agent else None
    write = sys.stdout.write
    count = 0
    for s, m in index.iter_events(since=since, until=until, kinds=tuple(args.kind), tools=tuple(args.tool),
                                  agent=agent, session_rowid=session_rowid):
        if not args.show_secrets:  # a stream consumer is often another agent
            s, m = masked_session(s), masked_message(m)
        write(output.dumps(output.event_json(s, m)) + "\n")
        count += 1
    return OK if count else NOTHING_FOUND

"""CLI commands over the session index: index, search, show, sessions, resume, events."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from indexer import (
    AmbiguousSessionError,
    ConfigError,
    Index,
    IndexBusyError,
    IndexCorruptError,
    IndexError_,
    IndexProgress,
    QueryError,
    Session,
    load_roots,
    parse_query,
    resume_command,
)
from indexer.db import remove_index_files
from indexer.models import KINDS, Message
from indexer.paths import default_db_path
from indexer.query import parse_date
from indexer.usage import UsageEvent, record_usage
from tui.cli import EXIT_BUSY, EXIT_INDEX, EXIT_NOT_FOUND, EXIT_NOTHING_FOUND, EXIT_OK, EXIT_USAGE
from tui.terminal_text import Style, safe_text

AGENT_DIR_OPTIONS = (("claude-code", "--claude-dir"), ("codex", "--codex-dir"), ("pi", "--pi-dir"))


def add_global_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="PATH", help="index file (default: $THREADBACK_DB or ~/.local/share/threadback/index.sqlite3)")
    for agent, flag in AGENT_DIR_OPTIONS:
        parser.add_argument(flag, action="append", metavar="DIR", dest=f"dirs_{agent.replace('-', '_')}",
                            help=f"{agent} log folder (repeatable; replaces the default)")
    parser.add_argument("--demo", action="store_true", help="open the bundled demo sessions")
    parser.add_argument("--memory-dir", dest="memory_dir", metavar="DIR", default=argparse.SUPPRESS,
                        help="memory folder for the app")


def _common(p: argparse.ArgumentParser) -> None:
    """Options every index command accepts after its name too (``threadback search --db X``)."""
    p.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS, help="index file")
    for agent, flag in AGENT_DIR_OPTIONS:
        p.add_argument(flag, action="append", metavar="DIR", dest=f"dirs_{agent.replace('-', '_')}",
                       default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("index", help="find agents' logs and update the index")
    _common(p)
    p.add_argument("--rebuild", action="store_true", help="delete the index and build it again")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress, only problems")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="search sessions (words, \"phrases\", OR, -word, agent: project: since: ...)")
    _common(p)
    p.add_argument("query", nargs="+", help="the query")
    p.add_argument("-n", "--limit", type=int, default=20, help="hits to show (default 20)")
    p.add_argument("--offset", type=int, default=0, help="skip this many hits (paging)")
    p.add_argument("-1", "--one-per-session", action="store_true", help="only the best hit of each session")
    p.add_argument("--exclude-session", action="append", default=[], metavar="ID", help="leave out a session (repeatable)")
    p.add_argument("-C", "--context", type=int, default=0, metavar="N", help="N messages before and after each hit")
    p.add_argument("--budget", type=int, default=0, metavar="BYTES", help="stop output at about this many bytes")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("show", help="print a session's transcript (or a window around one message)")
    _common(p)
    p.add_argument("session", help="session id (or a unique prefix, or agent:id)")
    p.add_argument("--around", type=int, metavar="MESSAGE_ID", help="only a window around this message")
    p.add_argument("-C", "--context", type=int, default=5, metavar="N", help="window size with --around (default 5)")
    p.add_argument("--full", action="store_true", help="show tool results and injected text in full")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("sessions", help="list sessions")
    _common(p)
    p.add_argument("--agent", help="claude-code, codex or pi")
    p.add_argument("--project", help="project name or path contains this")
    p.add_argument("--since", help="date or relative (7d, 3h)")
    p.add_argument("--until", help="date or relative")
    p.add_argument("--all", action="store_true", help="include subagent sessions")
    p.add_argument("-n", "--limit", type=int, default=50)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_sessions)

    p = sub.add_parser("resume", help="print the command that resumes a session in its agent")
    _common(p)
    p.add_argument("session")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_resume)

    p = sub.add_parser("events", help="the normalised event stream as JSON lines")
    _common(p)
    p.add_argument("--since", help="date or relative (7d, 3h)")
    p.add_argument("--until", help="date or relative")
    p.add_argument("--kind", action="append", choices=KINDS, default=[], help="only these kinds (repeatable)")
    p.add_argument("--tool", action="append", default=[], help="only calls/results of this tool (repeatable)")
    p.add_argument("--agent")
    p.add_argument("--session", help="only this session")
    p.set_defaults(func=cmd_events)


# -- shared plumbing -----------------------------------------------------------------
def db_path_of(args: argparse.Namespace) -> Path:
    return Path(args.db).expanduser() if getattr(args, "db", None) else default_db_path()


def roots_of(args: argparse.Namespace):
    overrides = {}
    for agent, _ in AGENT_DIR_OPTIONS:
        values = getattr(args, f"dirs_{agent.replace('-', '_')}", None)
        if values:
            overrides[agent] = values
    return load_roots(overrides)


def err(message: str) -> None:
    print(f"threadback: {message}", file=sys.stderr)


def open_existing_index(args: argparse.Namespace) -> Index | int:
    """The index, or an exit code after saying why it cannot be used."""
    path = db_path_of(args)
    if not path.exists():
        err(f"no index at {path} yet: run `threadback index` first")
        return EXIT_INDEX
    index = Index(path)
    try:
        index.conn  # noqa: B018 - opening validates the file
    except IndexError_ as exc:
        err(str(exc))
        return EXIT_INDEX
    return index


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def local_time(ts: float | None) -> str:
    if ts is None:
        return "----------------"
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def session_json(s: Session) -> dict:
    return {
        "agent": s.agent,
        "session_id": s.session_id,
        "parent_session_id": s.parent_session_id,
        "branched_from": s.branched_from,
        "project": s.project_name,
        "project_path": s.project_path,
        "git_branch": s.git_branch,
        "model": s.model,
        "title": s.title,
        "start": iso(s.start_ts),
        "end": iso(s.end_ts),
        "message_count": s.message_count,
        "source_path": s.source_path,
        "source_missing": s.source_missing,
        "resume_cwd": s.resume_cwd,
    }


def message_json(m: Message) -> dict:
    return {
        "message_id": m.id,
        "ordinal": m.ordinal,
        "time": iso(m.ts),
        "role": m.role,
        "kind": m.kind,
        "tool": m.tool_name,
        "text": m.text,
        "mark": m.mark,
    }


# -- index ---------------------------------------------------------------------------
def cmd_index(args: argparse.Namespace) -> int:
    path = db_path_of(args)
    try:
        roots = roots_of(args)
    except ConfigError as exc:
        err(str(exc))
        return EXIT_USAGE
    if args.rebuild:
        from indexer.ingest import IndexLock

        try:
            with IndexLock(path):
                remove_index_files(path)
        except IndexBusyError as exc:
            err(str(exc))
            return EXIT_BUSY
    index = Index(path)
    show_progress = sys.stderr.isatty() and not args.quiet and not args.json
    reporter = _ProgressLine() if show_progress else None
    try:
        summary = index.update(roots, progress=reporter)
    except IndexBusyError as exc:
        err(str(exc))
        return EXIT_BUSY
    except IndexCorruptError as exc:
        err(str(exc))
        return EXIT_INDEX
    finally:
        if reporter:
            reporter.clear()
    for problem in summary.problems:
        print(f"threadback: warning: {problem}", file=sys.stderr)
    stats = index.stats()
    if args.json:
        print(json.dumps({
            "db": str(path),
            "files_seen": summary.files_seen,
            "files_new": summary.files_new,
            "files_appended": summary.files_appended,
            "files_reindexed": summary.files_reindexed,
            "files_missing": summary.files_missing,
            "sessions_touched": summary.sessions_touched,
            "messages_added": summary.messages_added,
            "bytes_read": summary.bytes_read,
            "seconds": round(summary.seconds, 3),
            "sessions": stats.sessions,
            "messages": stats.messages,
            "problems": summary.problems,
        }, ensure_ascii=False))
    elif not args.quiet:
        if not summary.files_seen and not stats.sessions:
            where = ", ".join(str(p) for p in roots.all_paths())
            print(f"no agent logs found (looked in {where}); try `threadback --demo`", file=sys.stderr)
        print(
            f"{summary.files_seen:,} files ({summary.files_new:,} new, {summary.files_appended:,} grown, "
            f"{summary.files_reindexed:,} rewritten, {summary.files_missing:,} gone) · "
            f"{stats.sessions:,} sessions · {stats.messages:,} messages "
            f"(+{summary.messages_added:,}) · {summary.bytes_read / 1e6:.1f} MB read in {summary.seconds:.2f} s"
        )
    index.close()
    return EXIT_OK


class _ProgressLine:
    """A one-line progress display on stderr, redrawn at most 10 times a second."""

    def __init__(self) -> None:
        self._last = 0.0

    def __call__(self, p: IndexProgress) -> None:
        now = time.monotonic()
        if now - self._last < 0.1 and p.files_done < p.files_total:
            return
        self._last = now
        eta = p.eta_seconds
        width = 24
        filled = int(width * p.fraction)
        bar = "█" * filled + "░" * (width - filled)
        line = (
            f"\r{bar} {p.fraction * 100:5.1f}%  {p.files_done:,}/{p.files_total:,} files · "
            f"{p.bytes_done / 1e6:,.1f}/{p.bytes_total / 1e6:,.1f} MB · {p.sessions_touched:,} sessions"
            + (f" · ~{eta:.0f}s left" if eta is not None else "")
        )
        sys.stderr.write(line[:200] + "\x1b[K")
        sys.stderr.flush()

    def clear(self) -> None:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


# -- search ----------------------------------------------------------------------------
def cmd_search(args: argparse.Namespace) -> int:
    from tui.search_output import render_hits_json, render_hits_text, suggestions_for

    index = open_existing_index(args)
    if isinstance(index, int):
        return index
    text = " ".join(args.query)
    started = time.monotonic()
    query = parse_query(text, time.time())
    for warning in query.warnings:
        err(f"warning: {warning}")
    excluded = tuple(args.exclude_session) or _calling_session()
    try:
        result = index.search(
            query,
            limit=max(1, args.limit),
            offset=max(0, args.offset),
            one_per_session=args.one_per_session,
            exclude_sessions=excluded,
            context=max(0, args.context),
        )
    except QueryError as exc:
        err(str(exc))
        return EXIT_USAGE
    _log_search(text, result, excluded, started)
    if args.json:
        print(render_hits_json(result, budget=args.budget))
    else:
        style = Style.for_stream(sys.stdout)
        if result.hits:
            sys.stdout.write(render_hits_text(result, style, budget=args.budget))
        else:
            print(f"no hits for {text!r}.", file=sys.stdout)
            for tip in suggestions_for(query):
                print(f"  try: {tip}")
    index.close()
    return EXIT_OK if result.hits else EXIT_NOTHING_FOUND


def _calling_session() -> tuple[str, ...]:
    """The agent session running this search, when its hook or shell says so: it should not
    find itself."""
    for name in ("THREADBACK_SESSION_ID", "CLAUDE_SESSION_ID"):
        value = os.environ.get(name, "").strip()
        if value:
            return (value,)
    return ()


def _log_search(text: str, result, excluded: tuple[str, ...], started: float) -> None:
    """One usage-log line per search (best effort; see ``indexer.usage``)."""
    record_usage(UsageEvent(ts=time.time(), kind="search", query=text, hits=result.total,
                            excluded=excluded, ms=(time.monotonic() - started) * 1000))


# -- show ------------------------------------------------------------------------------
def find_session(index: Index, ref: str) -> Session | int:
    try:
        session = index.session(ref)
    except AmbiguousSessionError as exc:
        err(str(exc))
        return EXIT_USAGE
    if session is None:
        err(f"no session matches {ref!r} (see `threadback sessions`)")
        return EXIT_NOT_FOUND
    return session


def open_chosen_session(args: argparse.Namespace, kind: str) -> tuple[Index, Session] | int:
    """The index and ``args.session``, logged as the session a search led to; or an exit code."""
    index = open_existing_index(args)
    if isinstance(index, int):
        return index
    session = find_session(index, args.session)
    if isinstance(session, int):
        return session
    record_usage(UsageEvent(ts=time.time(), kind=kind, chosen=session.session_id))
    return index, session


def cmd_show(args: argparse.Namespace) -> int:
    opened = open_chosen_session(args, "show")
    if isinstance(opened, int):
        return opened
    index, session = opened
    if args.around is not None:
        center = index.message(args.around)
        if center is None or center.session_rowid != session.id:
            err(f"message {args.around} is not in session {session.session_id}")
            return EXIT_NOT_FOUND
        before, after = index.context(center, args.context, args.context)
        messages = [*before, center, *after]
    else:
        messages = index.messages(session)
    if args.json:
        print(json.dumps({"session": session_json(session), "messages": [message_json(m) for m in messages]},
                         ensure_ascii=False))
        return EXIT_OK
    style = Style.for_stream(sys.stdout)
    out = [style.bold(safe_text(_session_header(session)))]
    for m in messages:
        out.append(_format_message(m, style, full=args.full, mark=(m.id == args.around)))
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK


def _session_header(s: Session) -> str:
    span = local_time(s.start_ts)
    if s.end_ts and s.start_ts:
        span += f" → {local_time(s.end_ts)[11:]}"
    parts = [s.agent, s.project_name or "?", s.session_id, span, f"{s.message_count} messages"]
    if s.parent_session_id:
        parts.append(f"subagent of {s.parent_session_id}")
    if s.branched_from:
        parts.append(f"branched from {s.branched_from}")
    if s.source_missing:
        parts.append("log file deleted")
    return "── " + " · ".join(parts) + (f"\n   {s.title}" if s.title else "")


def _format_message(m: Message, style: Style, *, full: bool, mark: bool = False) -> str:
    when = local_time(m.ts)[11:] if m.ts else "--:--"
    prefix = ">> " if mark else ""
    label = {"user": "user", "assistant": "assistant", "tool": "result", "system": "system", "meta": "injected"}.get(m.role, m.role)
    text = m.text
    if m.kind == "tool_result":
        label = f"result{f' ({m.tool_name})' if m.tool_name else ''}"
        if not full:
            lines = text.splitlines()
            text = "\n".join(lines[:6]) + (f"\n… {len(lines) - 6} more lines (use --full)" if len(lines) > 6 else "")
    elif m.kind == "thinking":
        label = "thinking"
        if not full:
            text = text if len(text) < 300 else text[:300] + "… (use --full)"
    elif m.role == "meta" and not full:
        text = text.splitlines()[0][:120] + " … (injected, use --full)" if text else text
    elif m.kind == "summary":
        label = "summary"
    elif m.kind == "error":
        label = "error"
    if m.mark:
        label += f" ({m.mark})"
    head = f"{prefix}[{when}] #{m.id} {label}:"
    body = safe_text(text)
    colour = {"user": style.user, "assistant": style.assistant}.get(m.role, style.dim)
    if m.kind == "tool_call":
        return f"{head} {style.tool(body)}"
    indented = "\n".join("    " + line for line in body.splitlines())
    return f"{colour(head)}\n{indented}"


# -- sessions / resume / events ----------------------------------------------------------
def _time_range(args: argparse.Namespace) -> tuple[float | None, float | None] | int:
    """``--since``/``--until`` as epoch seconds, or an exit code after saying what is wrong."""
    bounds = []
    for value, end in ((args.since, False), (args.until, True)):
        ts = None if value is None else parse_date(value, time.time(), end_of_day=end)
        if value is not None and ts is None:
            err(f"{value!r} is not a date (try 2026-04-02, 7d, 3h, 2w, yesterday)")
            return EXIT_USAGE
        bounds.append(ts)
    return bounds[0], bounds[1]


def cmd_sessions(args: argparse.Namespace) -> int:
    index = open_existing_index(args)
    if isinstance(index, int):
        return index
    time_range = _time_range(args)
    if isinstance(time_range, int):
        return time_range
    since, until = time_range
    agent = args.agent
    if agent:
        agent = parse_query(f"agent:{agent}", 0).agent
    kwargs = {} if args.all else {"parent": None}
    sessions = index.sessions(agent=agent, project=args.project, since=since, until=until, limit=args.limit, **kwargs)
    if args.json:
        print(json.dumps([session_json(s) for s in sessions], ensure_ascii=False))
    else:
        style = Style.for_stream(sys.stdout)
        for s in sessions:
            title = safe_text(s.title or "")[:70]
            project = f"{safe_text(s.project_name or '?')[:20]:<20}"  # padded before styling
            print(f"{local_time(s.start_ts)}  {s.agent:<11} {style.bold(project)}  "
                  f"{s.session_id[:36]:<36} {s.message_count:>5}  {title}")
    return EXIT_OK if sessions else EXIT_NOTHING_FOUND


def cmd_resume(args: argparse.Namespace) -> int:
    opened = open_chosen_session(args, "resume")
    if isinstance(opened, int):
        return opened
    index, session = opened
    command = resume_command(session, index.parent(session))
    if args.json:
        print(json.dumps({"session": session_json(session), "command": command, "cwd": session.project_path},
                         ensure_ascii=False))
    else:
        print(command)
    return EXIT_OK


def cmd_events(args: argparse.Namespace) -> int:
    index = open_existing_index(args)
    if isinstance(index, int):
        return index
    time_range = _time_range(args)
    if isinstance(time_range, int):
        return time_range
    since, until = time_range
    session_rowid = None
    if args.session:
        session = find_session(index, args.session)
        if isinstance(session, int):
            return session
        session_rowid = session.id
    agent = parse_query(f"agent:{args.agent}", 0).agent if args.agent else None
    write = sys.stdout.write
    count = 0
    for s, m in index.iter_events(since=since, until=until, kinds=tuple(args.kind), tools=tuple(args.tool),
                                  agent=agent, session_rowid=session_rowid):
        write(json.dumps({
            "session": s.session_id,
            "agent": s.agent,
            "time": iso(m.ts),
            "cwd": s.project_path,
            "role": m.role,
            "kind": m.kind,
            "tool": m.tool_name,
            "model": s.model,
            "text": m.text,
        }, ensure_ascii=False) + "\n")
        count += 1
    return EXIT_OK if count else EXIT_NOTHING_FOUND


# -- the app -----------------------------------------------------------------------------
def run_app(args: argparse.Namespace) -> int:
    """``threadback`` with no command: the full-screen app (``--demo`` for the sample data)."""
    try:
        from tui.launch import launch
    except ModuleNotFoundError as exc:
        err(f"the app is not available ({exc})")
        return EXIT_USAGE
    return launch(args)


"""``threadback rules``: propose, list, show, reject, archive, undo, import, export, review.

There is deliberately no ``approve`` command. Approval happens only in ``review`` (``tui.cli.review``),
which runs only when both stdin and stdout are a terminal, so an agent cannot pipe "y" into it;
or in the app's review pane.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from indexer.config import resolve_memory_dir
from indexer.rules import (
    EXPORT_FORMATS,
    RuleStore,
    claude_projects_root,
    default_actor,
)
from indexer.rules.model import format_ts
from indexer.search.query import parse_query, text_matches
from indexer.text.safe import make_visible
from indexer.output import json_shapes as output
from tui.cli.exits import NOTHING_FOUND, OK, REFUSED, USAGE, CommandError, command, say
from tui.cli.options import claude_dirs_of
from tui.cli.passphrase import unlock_at_terminal
from tui.cli.review import edit_text, review_refusal, rule_details, run_review, status_label, when
from tui.cli.verbs import help_of

LIST_STATUSES = ("pending", "approved", "rejected", "archived", "changed", "unverified", "all")
PREFIX = "threadback rules"

rules_command = command(prefix=PREFIX)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``rules`` command and its sub-commands to the main CLI."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--memory-dir",
        dest="rules_memory_dir",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="memory folder holding rules.jsonl (default: $THREADBACK_MEMORY_DIR, ./memory/ "
        "if it holds memory files, else the data dir's memory/)",
    )
    rules = subparsers.add_parser(
        "rules",
        parents=[common],
        help=help_of("rules"),
        description="Rules agents propose and a person approves. Approval only happens in "
        "`threadback rules review` on a terminal, or in the app.",
    )
    rules.set_defaults(func=lambda args: _usage(rules))
    sub = rules.add_subparsers(dest="rules_command", metavar="ACTION")

    p = sub.add_parser("propose", parents=[common], help="propose a rule (always pending)")
    p.add_argument("--text", required=True, help="the rule's text; - reads stdin")
    p.add_argument("--session", help="session id the rule came from")
    p.add_argument("--agent", help="agent proposing it (claude-code, codex, pi ...)")
    p.add_argument("--source", metavar="PATH", help="file the rule came from")
    p.add_argument("--title", help="a short title")
    p.set_defaults(func=cmd_propose)

    p = sub.add_parser("list", parents=[common], help="list rules (pending by default)")
    p.add_argument("query", nargs="*", help="only rules whose text matches this query")
    p.add_argument("--status", choices=LIST_STATUSES, default="pending")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", parents=[common], help="show one rule in full")
    p.add_argument("id", help="rule id or a unique prefix")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_show)

    for name, verb in (
        ("reject", "reject a rule"),
        ("archive", "archive a rule (no longer exported)"),
        ("undo", "send a decided rule back to pending"),
    ):
        p = sub.add_parser(name, parents=[common], help=verb)
        p.add_argument("id", help="rule id or a unique prefix")
        p.set_defaults(func=cmd_decide, decision=name)

    p = sub.add_parser("import", parents=[common], help="import Claude Code auto-memory notes")
    p.add_argument(
        "--claude-dir",
        metavar="DIR",
        help="a .claude folder or its projects/ folder (default: $CLAUDE_CONFIG_DIR or ~/.claude)",
    )
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("export", parents=[common], help="print approved rules for CLAUDE.md")
    p.add_argument("--format", choices=EXPORT_FORMATS, default="markdown")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("review", parents=[common], help="approve or reject pending rules")
    p.set_defaults(func=cmd_review)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return USAGE


def _open_store(args: argparse.Namespace) -> RuleStore:
    """The rules of the memory folder (``indexer.config.resolve_memory_dir``)."""
    explicit = getattr(args, "rules_memory_dir", None) or getattr(args, "memory_dir", None)
    return RuleStore(resolve_memory_dir(explicit)[0])


def _one_line(text: str, width: int = 72) -> str:
    line = make_visible(text.strip().split("\n", 1)[0])
    more = "\n" in text.strip()
    if len(line) > width:
        return line[: width - 1] + "…"
    return line + (" …" if more else "")


# --- commands --------------------------------------------------------------------------------


@rules_command
def cmd_propose(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    result = _open_store(args).propose(
        text,
        now=time.time(),
        agent=args.agent,
        session_id=args.session,
        source_path=args.source,
        title=args.title,
    )
    if not result.created:
        print(f"near-duplicate of {result.rule.id} ({status_label(result.rule)}); not stored")
        return OK
    print(f"proposed {result.rule.id} (pending until approved in `threadback rules review`)")
    return OK


@rules_command
def cmd_list(args: argparse.Namespace) -> int:
    rules = _open_store(args).rules(args.status)
    if args.query:
        query = parse_query(" ".join(args.query), time.time())
        rules = [r for r in rules if text_matches(query, r.text)]
    if args.json:
        print(output.dumps([output.rule_json(r) for r in rules], indented=True))
    else:
        for rule in rules:
            agent = rule.agent or "-"
            print(
                f"{rule.id}  {status_label(rule):<8}  {when(rule.proposed_at)}  "
                f"{make_visible(agent)[:12]:<12}  {_one_line(rule.text)}"
            )
    if not rules:
        if not args.json:
            what = "rules" if args.status == "all" else f"{args.status} rules"
            print(f"no {what}", file=sys.stderr)
        return NOTHING_FOUND
    return OK


@rules_command
def cmd_show(args: argparse.Namespace) -> int:
    store = _open_store(args)
    rule = store.resolve(args.id)
    if args.json:
        data = output.rule_json(rule)
        data["history"] = [
            {"ts": format_ts(d.ts), "action": d.action, "actor": d.actor, "sha256": d.sha256}
            for d in store.history(rule.id)
        ]
        print(output.dumps(data, indented=True))
    else:
        print("\n".join(rule_details(rule, store.verification_note(rule), store.origin_note(rule))))
    return OK


@rules_command
def cmd_decide(args: argparse.Namespace) -> int:
    """reject / archive / undo: decisions that can never make a rule steer an agent."""
    store = _open_store(args)
    rule = store.resolve(args.id)
    action = {"reject": store.reject, "archive": store.archive, "undo": store.undo}[args.decision]
    updated = action(rule.id, now=time.time(), actor=default_actor())
    past = {"reject": "rejected", "archive": "archived", "undo": "back to pending:"}[args.decision]
    print(f"{past} {updated.id}")
    return OK


@rules_command
def cmd_import(args: argparse.Namespace) -> int:
    # `rules import --claude-dir`, else the global `threadback --claude-dir` log folders.
    given = [args.claude_dir] if args.claude_dir else None
    given = given or claude_dirs_of(args) or [None]
    roots = [claude_projects_root(Path(d) if d else None) for d in given]
    for root in roots:
        if not root.is_dir():
            say(PREFIX, f"no Claude Code projects folder at {root}")
    roots = [root for root in roots if root.is_dir()]
    if not roots:
        return NOTHING_FOUND
    store = _open_store(args)
    proposed = already = duplicates = skipped = 0
    for root in roots:
        report = store.import_claude_notes(root, now=time.time())
        for rule in report.proposed:
            print(f"pending   {rule.id}  {make_visible(rule.source_path or '')}")
        for path, existing in report.duplicates:
            print(f"near-dup  {existing.id}  {make_visible(str(path))}")
        for note in report.skipped:
            print(f"skipped   {make_visible(str(note.path))}: {note.reason}")
        proposed += len(report.proposed)
        already += len(report.already_imported)
        duplicates += len(report.duplicates)
        skipped += len(report.skipped)
    print(
        f"{proposed} new pending, {already} already imported, "
        f"{duplicates} near-duplicates, {skipped} skipped"
    )
    return OK


@rules_command
def cmd_export(args: argparse.Namespace) -> int:
    store = _open_store(args)
    if not store.approved():
        if args.format == "json":
            print("[]")
        print("no approved rules to export", file=sys.stderr)
        return NOTHING_FOUND
    sys.stdout.write(store.export(args.format))
    return OK


@rules_command
def cmd_review(args: argparse.Namespace) -> int:
    refusal = review_refusal(sys.stdin, sys.stdout, os.environ)
    if refusal:
        raise CommandError(refusal, REFUSED)
    store = _open_store(args)
    if not store.pending():
        print("no pending rules")
        return NOTHING_FOUND
    summary = run_review(
        store,
        ask=input,
        out=sys.stdout,
        approver=default_actor(),
        clock=time.time,
        edit=lambda text: edit_text(text, ask=input, out=sys.stdout),
        unlock=lambda: unlock_at_terminal(sys.stdout),
    )
    print(
        f"approved {summary.approved}, rejected {summary.rejected}, skipped {summary.skipped}; "
        f"{len(store.pending())} pending"
    )
    return OK

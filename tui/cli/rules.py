"""``threadback rules``: propose, list, show, reject, archive, undo, import, export, review.

There is deliberately no ``approve`` command. Approval happens only in ``review``, which runs
only when both stdin and stdout are a terminal, so an agent cannot pipe "y" into it; or in the
app's review pane.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable, TextIO

from indexer.config import resolve_memory_dir
from indexer.fileio import ChangedOnDiskError
from indexer.search.query import parse_query, text_matches
from indexer.rules import (
    CHANGED,
    EXPORT_FORMATS,
    Rule,
    RuleError,
    RuleNotFoundError,
    RuleStateError,
    RuleStore,
    TextChangedError,
    claude_projects_root,
    clean_rule_text,
    default_actor,
)
from indexer.rules.model import format_ts, rule_to_json
from indexer.textsafe import describe_suspicious, make_visible, suspicious_characters

EXIT_OK = 0
EXIT_NOTHING_FOUND = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 4
EXIT_REFUSED = 5

# Set in the shells that coding agents run commands in. Review refuses there even on a pty.
AGENT_ENV_MARKERS = ("CLAUDECODE", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED")

REVIEW_PROMPT = "[y]approve [n]reject [e]edit+approve [s]skip [q]quit: "
LIST_STATUSES = ("pending", "approved", "rejected", "archived", "changed", "all")
GUTTER = "  │ "


# --- wiring ----------------------------------------------------------------------------------


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
        help="rules proposed by agents, approved by you",
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


def build_parser() -> argparse.ArgumentParser:
    """A parser with only the ``rules`` command, for tests and ``python -m tui.cli.rules``."""
    parser = argparse.ArgumentParser(prog="threadback")
    register(parser.add_subparsers(dest="command", metavar="COMMAND"))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not hasattr(args, "func"):
        return EXIT_USAGE
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _open_store(args: argparse.Namespace) -> RuleStore:
    explicit = getattr(args, "rules_memory_dir", None) or getattr(args, "memory_dir", None)
    return RuleStore(resolve_memory_dir(explicit)[0])


def _error(message: str) -> None:
    print(f"threadback rules: {message}", file=sys.stderr)


# --- display ---------------------------------------------------------------------------------


def status_label(rule: Rule) -> str:
    status = rule.effective_status
    return "changed since approval" if status == CHANGED else status


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts).astimezone().strftime("%Y-%m-%d %H:%M")


def rule_text_block(text: str) -> list[str]:
    """The full text, made visible, behind a gutter so it cannot pass for our own output."""
    return [GUTTER + line for line in make_visible(text).split("\n")]


def rule_details(rule: Rule) -> list[str]:
    """Everything a person needs to judge a rule: status, origin, hashes, warnings, full text."""
    v = make_visible
    lines = [f"{rule.id}  {status_label(rule)}"]
    if rule.title:
        lines.append(f"title:     {v(rule.title)}")
    origin = v(rule.agent or "unknown agent")
    if rule.session_id:
        origin += f", session {v(rule.session_id)}"
    lines.append(f"proposed:  {_when(rule.proposed_at)} by {origin}")
    if rule.source_path:
        lines.append(f"source:    {v(rule.source_path)}")
    if rule.approved_sha256:
        lines.append(
            f"approved:  {_when(rule.approved_at)} by {v(rule.approved_by or '?')}, "
            f"sha256 {rule.approved_sha256}"
        )
    if rule.decided_at is not None:
        who = v(rule.decided_by or "?")
        lines.append(f"{rule.status + ':':<10} {_when(rule.decided_at)} by {who}")
    lines.append(f"sha256:    {rule.sha256}")
    if rule.effective_status == CHANGED:
        lines.append("warning:   the text changed since it was approved; it counts as pending")
    found = suspicious_characters(rule.text)
    if found:
        lines.append(f"warning:   {describe_suspicious(found)}")
    lines.append("text:")
    lines.extend(rule_text_block(rule.text))
    return lines


def _rule_json(rule: Rule) -> dict:
    data = rule_to_json(rule)
    data["effective_status"] = rule.effective_status
    data["sha256"] = rule.sha256
    data["suspicious_characters"] = [c.label for c in suspicious_characters(rule.text)]
    return data


def _one_line(text: str, width: int = 72) -> str:
    line = make_visible(text.strip().split("\n", 1)[0])
    more = "\n" in text.strip()
    if len(line) > width:
        return line[: width - 1] + "…"
    return line + (" …" if more else "")


# --- commands --------------------------------------------------------------------------------


def cmd_propose(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    store = _open_store(args)
    try:
        result = store.propose(
            text,
            now=time.time(),
            agent=args.agent,
            session_id=args.session,
            source_path=args.source,
            title=args.title,
        )
    except RuleError as exc:
        _error(str(exc))
        return EXIT_USAGE
    except ChangedOnDiskError as exc:
        _error(str(exc))
        return EXIT_REFUSED
    if not result.created:
        print(f"near-duplicate of {result.rule.id} ({status_label(result.rule)}); not stored")
        return EXIT_OK
    print(f"proposed {result.rule.id} (pending until approved in `threadback rules review`)")
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    store = _open_store(args)
    rules = store.rules(args.status)
    if args.query:
        query = parse_query(" ".join(args.query), time.time())
        rules = [r for r in rules if text_matches(query, r.text)]
    if args.json:
        print(json.dumps([_rule_json(r) for r in rules], ensure_ascii=False, indent=2))
    else:
        for rule in rules:
            agent = rule.agent or "-"
            print(
                f"{rule.id}  {rule.effective_status:<8}  {_when(rule.proposed_at)}  "
                f"{make_visible(agent)[:12]:<12}  {_one_line(rule.text)}"
            )
    if not rules:
        if not args.json:
            what = "rules" if args.status == "all" else f"{args.status} rules"
            print(f"no {what}", file=sys.stderr)
        return EXIT_NOTHING_FOUND
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    store = _open_store(args)
    try:
        rule = store.resolve(args.id)
    except RuleNotFoundError as exc:
        _error(str(exc))
        return EXIT_NOT_FOUND
    except RuleError as exc:
        _error(str(exc))
        return EXIT_USAGE
    if args.json:
        data = _rule_json(rule)
        data["history"] = [
            {"ts": format_ts(d.ts), "action": d.action, "actor": d.actor, "sha256": d.sha256}
            for d in store.history(rule.id)
        ]
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print("\n".join(rule_details(rule)))
    return EXIT_OK


def cmd_decide(args: argparse.Namespace) -> int:
    """reject / archive / undo: decisions that can never make a rule steer an agent."""
    store = _open_store(args)
    try:
        rule = store.resolve(args.id)
        actions = {"reject": store.reject, "archive": store.archive, "undo": store.undo}
        action = actions[args.decision]
        updated = action(rule.id, now=time.time(), actor=default_actor())
    except RuleNotFoundError as exc:
        _error(str(exc))
        return EXIT_NOT_FOUND
    except (RuleStateError, ChangedOnDiskError) as exc:
        _error(str(exc))
        return EXIT_REFUSED
    except RuleError as exc:
        _error(str(exc))
        return EXIT_USAGE
    past = {"reject": "rejected", "archive": "archived", "undo": "back to pending:"}[args.decision]
    print(f"{past} {updated.id}")
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    # `rules import --claude-dir`, else the global `threadback --claude-dir` log folders.
    given = [args.claude_dir] if args.claude_dir else None
    given = given or getattr(args, "dirs_claude_code", None) or [None]
    roots = [claude_projects_root(Path(d) if d else None) for d in given]
    missing = [root for root in roots if not root.is_dir()]
    for root in missing:
        _error(f"no Claude Code projects folder at {root}")
    roots = [root for root in roots if root.is_dir()]
    if not roots:
        return EXIT_NOTHING_FOUND
    store = _open_store(args)
    proposed = already = duplicates = skipped = 0
    for root in roots:
        try:
            report = store.import_claude_notes(root, now=time.time())
        except ChangedOnDiskError as exc:
            _error(str(exc))
            return EXIT_REFUSED
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
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    store = _open_store(args)
    if not store.approved():
        if args.format == "json":
            print("[]")
        print("no approved rules to export", file=sys.stderr)
        return EXIT_NOTHING_FOUND
    sys.stdout.write(store.export(args.format))
    return EXIT_OK


# --- review ----------------------------------------------------------------------------------


@dataclass
class ReviewSummary:
    approved: int = 0
    rejected: int = 0
    skipped: int = 0


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and os.isatty(stream.fileno())
    except (AttributeError, ValueError, OSError):
        return False


def review_refusal(stdin: TextIO | None, stdout: TextIO | None, env: dict[str, str]) -> str | None:
    """Why review must not run here, or ``None`` when a person is plausibly at a terminal."""
    if not (_is_terminal(stdin) and _is_terminal(stdout)):
        return (
            "review needs an interactive terminal (stdin and stdout must both be a TTY); "
            "approval cannot be piped or scripted. Run it yourself in a terminal, or use the "
            "review pane in `threadback`."
        )
    marker = next((name for name in AGENT_ENV_MARKERS if env.get(name)), None)
    if marker:
        return f"review is not available inside a coding agent's shell (${marker} is set)"
    return None


def cmd_review(args: argparse.Namespace) -> int:
    refusal = review_refusal(sys.stdin, sys.stdout, dict(os.environ))
    if refusal:
        _error(refusal)
        return EXIT_REFUSED
    store = _open_store(args)
    if not store.pending():
        print("no pending rules")
        return EXIT_NOTHING_FOUND
    summary = run_review(
        store,
        ask=input,
        out=sys.stdout,
        approver=default_actor(),
        clock=time.time,
        edit=lambda text: edit_text(text, ask=input, out=sys.stdout),
    )
    left = len(store.pending())
    print(
        f"approved {summary.approved}, rejected {summary.rejected}, skipped {summary.skipped}; "
        f"{left} pending"
    )
    return EXIT_OK


def run_review(
    store: RuleStore,
    *,
    ask: Callable[[str], str],
    out: TextIO,
    approver: str,
    clock: Callable[[], float],
    edit: Callable[[str], str | None],
) -> ReviewSummary:
    """Show each pending rule in full and act on the answer. ``ask`` raising ``EOFError`` quits.

    The store is reloaded before each rule is shown, and the approval is bound to the text as
    shown; if anything changed meanwhile the approval is refused and the rule shown again.
    """
    summary = ReviewSummary()
    queue = [rule.id for rule in store.pending()]
    position = 0
    while position < len(queue):
        store.reload()
        try:
            rule = store.get(queue[position])
        except RuleNotFoundError:
            position += 1
            continue
        if not rule.needs_review:  # decided elsewhere meanwhile
            position += 1
            continue
        print(f"\n[{position + 1}/{len(queue)}] " + "\n".join(rule_details(rule)), file=out)
        try:
            answer = ask(REVIEW_PROMPT).strip().lower()
        except EOFError:
            print(file=out)
            break
        try:
            if answer == "y":
                approved = store.approve(rule.id, rule.text, now=clock(), approver=approver)
                print(f"approved {rule.id} (sha256 {approved.approved_sha256})", file=out)
                summary.approved += 1
            elif answer == "n":
                store.reject(rule.id, now=clock(), actor=approver)
                print(f"rejected {rule.id}", file=out)
                summary.rejected += 1
            elif answer == "e":
                done = _review_edit(
                    store, rule, ask=ask, out=out, approver=approver, clock=clock, edit=edit
                )
                if not done:
                    continue  # cancelled: show the rule again
                summary.approved += 1
            elif answer == "s":
                summary.skipped += 1
            elif answer == "q":
                break
            else:
                print("answer y, n, e, s or q", file=out)
                continue
        except (TextChangedError, ChangedOnDiskError) as exc:
            print(f"refused: {exc}\nshowing the rule again as it is now.", file=out)
            continue
        except EOFError:
            break
        position += 1
    return summary


def _review_edit(
    store: RuleStore,
    rule: Rule,
    *,
    ask: Callable[[str], str],
    out: TextIO,
    approver: str,
    clock: Callable[[], float],
    edit: Callable[[str], str | None],
) -> bool:
    """Edit, show the edited text in full, and approve it on a second ``y``."""
    edited = edit(rule.text)
    try:
        new_text = clean_rule_text(edited or "")
    except RuleError:
        print("edit cancelled (empty text)", file=out)
        return False
    print("edited text:", file=out)
    print("\n".join(rule_text_block(new_text)), file=out)
    found = suspicious_characters(new_text)
    if found:
        print(f"warning:   {describe_suspicious(found)}", file=out)
    if ask("approve this text? [y/n]: ").strip().lower() != "y":
        print("edit discarded", file=out)
        return False
    if new_text == rule.text:
        store.approve(rule.id, rule.text, now=clock(), approver=approver)
    else:
        store.edit_and_approve(rule.id, rule.text, new_text, now=clock(), approver=approver)
    print(f"approved edited {rule.id} (sha256 {store.get(rule.id).approved_sha256})", file=out)
    return True


def edit_text(text: str, *, ask: Callable[[str], str], out: TextIO) -> str | None:
    """The text after the person edits it in ``$EDITOR``, or a typed replacement line."""
    editor = os.environ.get("EDITOR") or os.environ.get("VISUAL")
    if not editor:
        print("no $EDITOR set; type the replacement text on one line (empty cancels)", file=out)
        return ask("> ")
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", suffix=".md", prefix="threadback-rule-", delete=False
    ) as handle:
        handle.write(text + "\n")
        path = handle.name
    try:
        if subprocess.run([*shlex.split(editor), path], check=False).returncode != 0:
            print("editor exited with an error; edit cancelled", file=out)
            return None
        return Path(path).read_text(encoding="utf-8", errors="replace")
    finally:
        os.unlink(path)


if __name__ == "__main__":
    raise SystemExit(main())

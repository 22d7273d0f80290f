"""``threadback doctor``: per agent, where its logs are, how long the agent keeps them, and
whether the archive holds every log the agent is about to delete; offers to raise a retention
(Claude Code's ``cleanupPeriodDays``) with the person's consent.

The checks are ``indexer.agents.retention``'s; this module asks, prints and exits.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from indexer.agents.retention import DUE_WITHIN_DAYS, RetentionCheck, raise_retention, retention_checks
from indexer.config import archive_enabled
from tui.cli.exits import OK, REFUSED, USAGE, CommandError, command
from tui.cli.options import add_index_options, db_file_of, roots_of
from tui.cli.review import is_terminal
from tui.cli.terminal import safe_text
from tui.cli.verbs import help_of

RAISED_DAYS = 3650  # what "raise" means when no number is given: ten years

doctor_command = command()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help=help_of("doctor"))
    add_index_options(p)
    p.add_argument("--raise-retention", nargs="?", type=int, const=RAISED_DAYS, metavar="DAYS",
                   help=f"raise Claude Code's cleanupPeriodDays to DAYS (default {RAISED_DAYS}); asks first")
    p.add_argument("--yes", action="store_true", help="raise it without asking (with --raise-retention)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_doctor)


@doctor_command
def cmd_doctor(args: argparse.Namespace) -> int:
    now = time.time()
    checks = retention_checks(db_file_of(args), roots_of(args), archive_on=archive_enabled(), now=now)
    if args.json:
        print(json.dumps([_as_json(check, folders, count) for check, folders, count in checks], indent=2))
    else:
        for check, folders, count in checks:
            _print(check, folders, count)
    claude = next((c for c, _, _ in checks if c.retention.settings_path is not None), None)
    if args.raise_retention is not None:
        return _raise(claude, args.raise_retention, ask=not args.yes)
    if claude is not None and not claude.safe and not args.json and is_terminal(sys.stdin) and is_terminal(sys.stdout):
        return _raise(claude, RAISED_DAYS, ask=True)
    return OK


def _print(check: RetentionCheck, folders: tuple[str, ...], count: int) -> None:
    agent = check.agent
    where = ", ".join(folders) or "no folder (set one in the config's [roots])"
    print(f"{agent.label}: {count:,} log(s) in {safe_text(where)}")
    if check.retention.problem:
        print(f"  warning: {safe_text(check.retention.problem)}")
    print(f"  {safe_text(check.retention.describe())}")
    if check.retention.days is None:
        return
    print(f"  archive: {'on' if check.archive_on else 'OFF'}; {check.due:,} log(s) due for deletion within "
          f"{DUE_WITHIN_DAYS} days, {check.due - len(check.at_risk):,} of them held by the archive")
    for risk in check.at_risk[:10]:
        print(f"    {risk.reason}: {safe_text(risk.path)}")
    if len(check.at_risk) > 10:
        print(f"    ... and {len(check.at_risk) - 10:,} more")
    warning = check.warning()
    if warning:
        print(f"  warning: {safe_text(warning)}")


def _as_json(check: RetentionCheck, folders: tuple[str, ...], count: int) -> dict:
    retention = check.retention
    return {
        "agent": check.agent.name, "label": check.agent.label, "folders": list(folders), "logs": count,
        "retention_days": retention.days, "retention_default": retention.default, "retention_set_in": retention.where,
        "retention_problem": retention.problem, "archive": check.archive_on, "due": check.due,
        "at_risk": [{"path": r.path, "reason": r.reason, "mtime": r.mtime} for r in check.at_risk],
        "warning": check.warning(),
    }


def _raise(check: RetentionCheck | None, days: int, *, ask: bool) -> int:
    if check is None:
        raise CommandError("no agent's retention can be raised here", REFUSED)
    retention = check.retention
    if days < 1:
        raise CommandError("--raise-retention takes a number of days, at least 1", USAGE)
    question = (f"Raise {check.agent.label}'s log retention from {retention.days} to {days} days "
                f"(cleanupPeriodDays in {retention.settings_path})? [y/N]: ")
    if ask:
        if not (is_terminal(sys.stdin) and is_terminal(sys.stdout)):
            raise CommandError("raising the retention asks you first at a terminal; add --yes to do it "
                               "without asking", REFUSED)
        try:
            answer = input(safe_text(question)).strip().lower()
        except EOFError:
            answer = ""
        if answer != "y":
            print("left unchanged")
            return OK
    raised = raise_retention(retention, days)
    print(f"{check.agent.label} now keeps logs {raised.after} days after their last activity "
          f"({safe_text(str(raised.path))})")
    if raised.backup:
        print(f"previous version kept as {safe_text(str(raised.backup))}")
    return OK

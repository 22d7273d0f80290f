"""``threadback rules review``: each pending rule shown in full at a terminal, decided by a person.

Approval is bound to the text shown: the store refuses it if the rule changed meanwhile, and
the rule is shown again as it is now.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TextIO

from indexer.util.fileio import ChangedOnDiskError
from indexer.rules import CHANGED, UNVERIFIED, Rule, RuleError, RuleNotFoundError, RuleStore, TextChangedError, clean_rule_text
from indexer.rules.review import AgentFinder, agent_ancestor
from indexer.rules.review import review_refusal as approval_refusal
from indexer.text.safe import describe_suspicious, each_suspicious_line, make_visible, suspicious_characters

REVIEW_PROMPT = "[y]approve [n]reject [e]edit+approve [s]skip [q]quit: "
HIDDEN_CONFIRM_WORD = "approve"
HIDDEN_CONFIRM_PROMPT = f"Type {HIDDEN_CONFIRM_WORD!r} to approve it with these characters (anything else goes back): "
GUTTER = "  │ "


def status_label(rule: Rule) -> str:
    return rule.status_label


def when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts).astimezone().strftime("%Y-%m-%d %H:%M")


def rule_text_block(text: str) -> list[str]:
    """The full text, made visible, behind a gutter so it cannot pass for our own output."""
    return [GUTTER + line for line in make_visible(text).split("\n")]


def rule_details(rule: Rule, note: str | None = None, made: str | None = None) -> list[str]:
    """Everything a person needs to judge a rule: status, origin, hashes, warnings, full text
    (``note``: why an approval is not verified, from ``RuleStore.verification_note``; ``made``:
    an approval made detached from the login session, from ``RuleStore.origin_note``)."""
    v = make_visible
    lines = [f"{rule.id}  {status_label(rule)}"]
    if rule.title:
        lines.append(f"title:     {v(rule.title)}")
    origin = v(rule.agent or "unknown agent")
    if rule.session_id:
        origin += f", session {v(rule.session_id)}"
    lines.append(f"proposed:  {when(rule.proposed_at)} by {origin}")
    if rule.source_path:
        lines.append(f"source:    {v(rule.source_path)}")
    if rule.approved_sha256:
        lines.append(
            f"approved:  {when(rule.approved_at)} by {v(rule.approved_by or '?')}, "
            f"sha256 {rule.approved_sha256}"
        )
    if rule.decided_at is not None:
        who = v(rule.decided_by or "?")
        lines.append(f"{rule.status + ':':<10} {when(rule.decided_at)} by {who}")
    lines.append(f"sha256:    {rule.sha256}")
    if rule.effective_status == CHANGED:
        lines.append("warning:   the text changed since it was approved; it counts as pending")
    if rule.effective_status == UNVERIFIED:
        lines.append(f"warning:   approval not verified: {note or 'it counts as pending'}")
    if made:
        lines.append(f"warning:   {made}")
    found = suspicious_characters(rule.text)
    if found:
        lines.append(f"warning:   {describe_suspicious(found)}")
    lines.append("text:")
    lines.extend(rule_text_block(rule.text))
    return lines


@dataclass
class ReviewSummary:
    approved: int = 0
    rejected: int = 0
    skipped: int = 0


def is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and os.isatty(stream.fileno())
    except (AttributeError, ValueError, OSError):
        return False


def review_refusal(stdin: TextIO | None, stdout: TextIO | None, env: Mapping[str, str],
                   find_agent: AgentFinder = agent_ancestor) -> str | None:
    """Why review must not run with these streams, this environment and these ancestor
    processes (``indexer.rules.review``)."""
    return approval_refusal(is_terminal(stdin) and is_terminal(stdout), env, find_agent)


def confirm_hidden_characters(text: str, *, ask: Callable[[str], str], out: TextIO) -> bool:
    """The second, explicit confirmation a rule with hidden characters needs: every character
    listed, and a word typed, not a reflex ``y``. True when there are none."""
    found = suspicious_characters(text)
    if not found:
        return True
    noun = "character" if len(found) == 1 else "characters"
    print(f"This rule contains {len(found)} hidden or deceptive {noun}; an agent reading it "
          "sees them, you may not:", file=out)
    print("\n".join("  " + line for line in each_suspicious_line(text, found)), file=out)
    if ask(HIDDEN_CONFIRM_PROMPT).strip().lower() == HIDDEN_CONFIRM_WORD:
        return True
    print("not approved; the rule is shown again.", file=out)
    return False


def run_review(
    store: RuleStore,
    *,
    ask: Callable[[str], str],
    out: TextIO,
    approver: str,
    clock: Callable[[], float],
    edit: Callable[[str], str | None],
    unlock: Callable[[], str | None] = lambda: None,
) -> ReviewSummary:
    """Show each pending rule in full and act on the answer. ``ask`` raising ``EOFError`` quits.

    The store is reloaded before each rule is shown, and the approval is bound to the text as
    shown; if anything changed meanwhile the approval is refused and the rule shown again.
    ``unlock`` asks for the approval passphrase before the first approval (None: unlocked, else
    why not: the review ends, nothing approved).
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
        details = rule_details(rule, store.verification_note(rule), store.origin_note(rule))
        print(f"\n[{position + 1}/{len(queue)}] " + "\n".join(details), file=out)
        try:
            answer = ask(REVIEW_PROMPT).strip().lower()
        except EOFError:
            print(file=out)
            break
        if answer in ("y", "e") and not _unlocked(unlock, out):
            break
        try:
            if answer == "y":
                if not confirm_hidden_characters(rule.text, ask=ask, out=out):
                    continue
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


def _unlocked(unlock: Callable[[], str | None], out: TextIO) -> bool:
    """Whether the approval key is unlocked (asked the first time); if not, why, and the review
    ends: one wrong passphrase per review, so nothing types guesses into it in a loop."""
    try:
        refused = unlock()
    except EOFError:
        refused = "no passphrase was typed"
    if refused:
        print(f"not approved: {refused}", file=out)
    return not refused


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
    if not confirm_hidden_characters(new_text, ask=ask, out=out):
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

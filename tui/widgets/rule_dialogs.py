"""The questions the rule review asks before a trust decision: approving a rule that hides
characters, approving several at once, allowing a project's memory folder. Each lists exactly
what the person is deciding on; ``ConfirmScreen`` asks it."""

from __future__ import annotations

from pathlib import Path

from indexer.memory.trust import folder_entries, folder_summary
from indexer.rules import Rule
from indexer.text.safe import each_suspicious_line, make_visible, suspicious_characters
from tui.display.log_text import one_line


def hidden_characters_question(rule_id: str, text: str) -> tuple[str, str]:
    """(title, question) for the second confirmation a rule with hidden characters needs."""
    found = suspicious_characters(text)
    noun = "character" if len(found) == 1 else "characters"
    lines = each_suspicious_line(text, found)
    shown = lines[:12] + ([f"… and {len(lines) - 12} more"] if len(lines) > 12 else [])
    question = (
        f"{rule_id} contains {len(found)} hidden or deceptive {noun}. An agent reading the rule "
        "sees them; you may not:\n\n" + "\n".join(shown)
        + "\n\nApprove the rule with these characters in it?"
    )
    return f"Approve with {len(found)} hidden {noun}?", question


def bulk_question(listed: list[Rule], hidden: list[Rule], more: int, limit: int) -> str:
    """The approve-all confirmation: every rule it approves, and the ones it leaves out."""
    rows = []
    for rule in listed:
        extra = rule.text.count("\n")
        lines = f" (+{extra} more line{'s' * (extra != 1)})" if extra else ""
        rows.append(f"• {rule.id}  {one_line(rule.first_line, 52)}{lines}")
    question = f"Approve these {len(listed)} rules, exactly as stored now?\n\n" + "\n".join(rows)
    if hidden:
        question += (f"\n\n{len(hidden)} rule{'s' * (len(hidden) != 1)} with hidden characters "
                     "left out: approve each one on its own (ctrl+y), after reading its list.")
    if more:
        question += f"\n\n{more} more stay pending (at most {limit} at a time)."
    return question


def allow_folder_question(folder: Path) -> str:
    """What allowing a project's memory folder hands to agents, listed before the person says yes."""
    entries = [f"• {make_visible(entry.describe())}" for entry in folder_entries(folder)]
    summary = [f"  {make_visible(line)}" for line in folder_summary(folder)]
    return (
        f"{make_visible(str(folder))} is a project's memory folder (it may have come with a "
        "cloned repository). It holds:\n\n" + "\n".join(entries or ["• no memory files"])
        + ("\n\n" + "\n".join(summary) if summary else "")
        + "\n\nAllowed, its facts, scratchpad and episodic entries go to your agents as reference "
        "data, and the rules you approved in it count, until rules.jsonl changes outside "
        "Threadback. Allow it?"
    )

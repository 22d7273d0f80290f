"""Deny rules in Claude Code's ``permissions``, so the agent is not even offered the commands
that only a person should run: approving rules, allowing a project's memory folder, and
reading the approval key.

A guard against accidents, not a wall. Claude Code matches a Bash rule against the command it
is asked to run, so these do not stop the same program reached another way (``sh -c``,
``script -c``, ``python -m tui.cli``, a full path, an alias), nor a Bash ``cat`` of the key;
the process-tree check (``indexer.rules.review``) and the key itself are the other layers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

APPROVAL_COMMANDS = ("threadback rules review", "threadback memory allow")


def approval_deny_rules(key_dir: Path) -> tuple[str, ...]:
    """The rules ``hooks install`` adds: the approval commands, and the key's folder (``//``
    starts an absolute path in Claude Code's rules; ``Edit`` covers every file-writing tool)."""
    folder = "//" + str(Path(key_dir).expanduser().resolve()).lstrip("/")
    return (
        *(f"Bash({command} *)" for command in APPROVAL_COMMANDS),
        f"Read({folder}/**)",
        f"Edit({folder}/**)",
    )


def _deny_list(settings: dict[str, Any], *, create: bool) -> list[Any] | None:
    permissions = settings.get("permissions")
    if permissions is None and create:
        permissions = settings["permissions"] = {}
    if not isinstance(permissions, dict):
        return None
    deny = permissions.get("deny")
    if deny is None and create:
        deny = permissions["deny"] = []
    return deny if isinstance(deny, list) else None


def add_deny_rules(settings: dict[str, Any], rules: tuple[str, ...]) -> tuple[str, ...]:
    """Add the ``rules`` not there yet to ``permissions.deny``; the ones added."""
    present = _deny_list(settings, create=False) or []
    missing = tuple(rule for rule in rules if rule not in present)
    if missing:
        deny = _deny_list(settings, create=True)
        if deny is None:  # "permissions" or "deny" of an unexpected shape: leave it alone
            return ()
        deny.extend(missing)
    return missing


def remove_deny_rules(settings: dict[str, Any], rules: tuple[str, ...]) -> tuple[str, ...]:
    """Take exactly ``rules`` out of ``permissions.deny``; the ones removed. ``permissions``
    goes too when nothing but an empty deny list is left in it (install made it)."""
    deny = _deny_list(settings, create=False)
    if not deny:
        return ()
    removed = tuple(rule for rule in rules if rule in deny)
    deny[:] = [rule for rule in deny if rule not in removed]
    if removed and settings.get("permissions") == {"deny": []}:
        del settings["permissions"]
    return removed


def deny_rules_present(settings: dict[str, Any], rules: tuple[str, ...]) -> tuple[str, ...]:
    present = _deny_list(settings, create=False) or []
    return tuple(rule for rule in rules if rule in present)

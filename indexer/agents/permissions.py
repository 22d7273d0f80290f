"""Deny rules in Claude Code's ``permissions`` and in Codex's rules (``<codex home>/rules/``), so
neither agent is even offered the commands that only a person should run: approving rules,
allowing a project's memory folder, and (Claude Code) reading or writing the approval key.

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


# --- Codex: a rules file of ours (https://developers.openai.com/codex/rules) --------------------

CODEX_RULES_FILE = "threadback.rules"
_CODEX_MARK = "# Threadback: written by `threadback hooks install --codex`; uninstall removes this file."
_CODEX_COMMANDS = (("rules", "review"), ("memory", "allow"))


def codex_rules_text(program: str = "threadback") -> str:
    """Codex ``prefix_rule``s forbidding the approval commands. Codex matches a command's exact
    prefix, so ``threadback rules --memory-dir X review`` or ``sh -c`` escapes them, as Bash(...)
    rules are escaped in Claude Code: a guard against accidents; the passphrase is the wall."""
    names = sorted({program, "threadback"})
    first = repr(names[0]).replace("'", '"') if len(names) == 1 else "[" + ", ".join(f'"{n}"' for n in names) + "]"
    rules = [_CODEX_MARK]
    for verb, action in _CODEX_COMMANDS:
        rules.append(
            "prefix_rule(\n"
            f'    pattern = [{first}, "{verb}", "{action}"],\n'
            '    decision = "forbidden",\n'
            f'    justification = "Only the user runs `threadback {verb} {action}`, in a terminal of their own: '
            'it approves what agents may do. Ask the user to run it.",\n'
            f'    match = ["threadback {verb} {action}"],\n'
            f'    not_match = ["threadback {verb} list"],\n'
            ")")
    return "\n".join(rules) + "\n"


def install_codex_deny(codex_folder: Path, program: str = "threadback") -> Path | None:
    """Write our rules file into ``<codex folder>/rules/``; the path when it changed. A file of
    that name that is not ours is left alone (None)."""
    path = Path(codex_folder) / "rules" / CODEX_RULES_FILE
    text = codex_rules_text(program)
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    if current == text or (current is not None and not current.startswith(_CODEX_MARK)):
        return None
    from indexer.util.fileio import atomic_write_text

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text, backup=False)
    return path


def uninstall_codex_deny(codex_folder: Path) -> Path | None:
    """Remove our rules file (only if it is ours); its path when removed."""
    path = Path(codex_folder) / "rules" / CODEX_RULES_FILE
    try:
        if not path.read_text(encoding="utf-8").startswith(_CODEX_MARK):
            return None
    except (FileNotFoundError, UnicodeDecodeError):
        return None
    path.unlink()
    return path

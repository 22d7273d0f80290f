"""Add Threadback's hooks to a Claude Code ``settings.json`` and take them out again.

Claude Code reads hooks from ``~/.claude/settings.json`` (``$CLAUDE_CONFIG_DIR/settings.json``)
and ``<project>/.claude/settings.json``::

    {"hooks": {"UserPromptSubmit": [{"matcher": "", "hooks": [
        {"type": "command", "command": "threadback hook prompt", "timeout": 10}]}]}}

Our entries are the hook commands whose program is ``threadback`` and whose first argument is
``hook``; nothing else in the file is touched. Install is idempotent, uninstall removes exactly
those entries (and a group or event list only if our removal emptied it), and the file is
written atomically with a ``.bak`` of the previous version, in the indentation it already had,
so install followed by uninstall gives back the same bytes. A file that does not parse is
reported and left alone. Install also adds deny rules for the approval commands to
``permissions`` (``indexer.agents.permissions``); uninstall removes exactly those.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.agents.permissions import (
    add_deny_rules,
    approval_deny_rules,
    deny_rules_present,
    remove_deny_rules,
)
from indexer.util.fileio import FileStamp, atomic_write_text, backup_path, check_unchanged
from indexer.rules.signing import key_path

# Event -> the ``threadback hook`` sub-command it runs.
HOOK_EVENTS: dict[str, str] = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "prompt",
    "Stop": "refresh",
    "SessionEnd": "refresh",
}
HOOK_TIMEOUT_SECONDS = 10
DEFAULT_PROGRAM = "threadback"
_OURS = re.compile(r"""^\s*['"]?(?:\S*[/\\])?threadback(?:\.exe)?['"]?\s+hook(?:\s|$)""")


class SettingsError(ValueError, ThreadbackError):
    """settings.json cannot be changed safely (it does not parse, or has an unexpected shape)."""
    kind = errors.REFUSED


@dataclass(frozen=True, slots=True)
class HookChange:
    path: Path
    added: tuple[str, ...] = ()  # events
    removed: tuple[str, ...] = ()  # events
    backup: Path | None = None  # the previous file, when one was written
    denied: tuple[str, ...] = ()  # deny rules added to permissions
    undenied: tuple[str, ...] = ()  # deny rules removed

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed or self.denied or self.undenied)


@dataclass(frozen=True, slots=True)
class HooksStatus:
    path: Path
    exists: bool
    installed: tuple[str, ...]  # events with a Threadback hook
    error: str | None = None
    denied: tuple[str, ...] = ()  # our deny rules present in permissions

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(e for e in HOOK_EVENTS if e not in self.installed)

    @property
    def complete(self) -> bool:
        return not self.missing and self.error is None


def user_settings_path(env: Mapping[str, str] | None = None) -> Path:
    """``$CLAUDE_CONFIG_DIR/settings.json``, else ``~/.claude/settings.json``."""
    env = os.environ if env is None else env
    if env.get("CLAUDE_CONFIG_DIR"):
        return Path(env["CLAUDE_CONFIG_DIR"]).expanduser() / "settings.json"
    return Path.home() / ".claude" / "settings.json"


def project_settings_path(cwd: Path | None = None) -> Path:
    return (Path.cwd() if cwd is None else Path(cwd)) / ".claude" / "settings.json"


def is_threadback_command(command: object) -> bool:
    return isinstance(command, str) and bool(_OURS.match(command))


def hook_subcommand(command: object) -> str | None:
    """``prompt`` for ``threadback hook prompt``; None for a command that is not ours."""
    if not isinstance(command, str):
        return None
    m = _OURS.match(command)
    if m is None:
        return None
    rest = command[m.end():].split()
    return rest[0] if rest else ""


def hook_command(event: str, program: str = DEFAULT_PROGRAM) -> str:
    prog = program if program == DEFAULT_PROGRAM else shlex.quote(program)
    return f"{prog} hook {HOOK_EVENTS[event]}"


def _hook_group(event: str, program: str) -> dict[str, Any]:
    return {
        "matcher": "",
        "hooks": [{"type": "command", "command": hook_command(event, program), "timeout": HOOK_TIMEOUT_SECONDS}],
    }


def hook_entries(program: str = DEFAULT_PROGRAM) -> dict[str, list[dict[str, Any]]]:
    """Every event's hook entry, as ``install_hooks`` adds it (``hooks print --claude-code``)."""
    return {event: [_hook_group(event, program)] for event in HOOK_EVENTS}


def hook_program(launched_as: str | None) -> tuple[str, str | None]:
    """The command the hooks will run, and a note for a person when it is not the plain
    ``threadback`` found on PATH (Claude Code runs hooks through a shell, with its PATH).

    ``launched_as`` is how this program was started (``sys.argv[0]``): when ``threadback`` is
    not on PATH but that is a ``threadback`` executable, the hooks run it by its full path."""
    import shutil  # here: every index run reads these settings (retention), never this (~3 ms)

    if shutil.which(DEFAULT_PROGRAM):
        return DEFAULT_PROGRAM, None
    launched = Path(launched_as).resolve() if launched_as else None
    if launched is not None and launched.name == DEFAULT_PROGRAM and launched.is_file():
        return str(launched), f"`threadback` is not on PATH, so the hooks will run it by its full path: {launched}"
    return DEFAULT_PROGRAM, ("`threadback` is not on PATH: the hooks cannot run until it is "
                             "(or install them with `threadback hooks install --program /full/path`).")


# --- the file ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Layout:
    """How the file was written, so we write it back the same way."""

    indent: int | str | None
    ensure_ascii: bool
    trailing_newline: bool


def _layout_of(text: str) -> _Layout:
    indent: int | str | None = None
    m = re.search(r"^[{\[][ \t]*\r?\n([ \t]+)\S", text, re.MULTILINE)
    if m:
        ws = m.group(1)
        indent = len(ws) if set(ws) == {" "} else ws
    elif "\n" not in text.strip():
        indent = None
    else:
        indent = 2
    return _Layout(indent, text.isascii(), text.endswith("\n"))


def _dump(settings: dict[str, Any], layout: _Layout) -> str:
    text = json.dumps(settings, indent=layout.indent, ensure_ascii=layout.ensure_ascii)
    return text + ("\n" if layout.trailing_newline else "")


def read_config_text(path: Path) -> str:
    """An agent's config file as text (a BOM allowed); one clear error when it is not UTF-8."""
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path} is not UTF-8 text ({exc}); fix it by hand first") from None


def json_object_of(path: Path, text: str) -> dict[str, Any]:
    """The JSON object ``text`` holds (the file ``path``'s), or a ``SettingsError`` saying where
    it is broken: a settings file we cannot read is never rewritten."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "it was left unchanged — fix it by hand, then run this again"
        ) from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path} does not hold a JSON object; it was left unchanged")
    return data


def _load(path: Path) -> tuple[dict[str, Any], _Layout, FileStamp]:
    stamp = FileStamp.of(path)
    if not stamp.exists:
        return {}, _Layout(2, True, True), stamp
    text = read_config_text(path)
    if not text.strip():
        return {}, _Layout(2, True, True), stamp
    data = json_object_of(path, text)
    _check_shape(path, data)
    return data, _layout_of(text), stamp


def _check_shape(path: Path, data: dict[str, Any]) -> None:
    hooks = data.get("hooks")
    if hooks is None:
        return
    if not isinstance(hooks, dict):
        raise SettingsError(f"{path}: \"hooks\" is not an object; it was left unchanged")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise SettingsError(f"{path}: hooks.{event} is not a list; it was left unchanged")


def _save(path: Path, settings: dict[str, Any], layout: _Layout, stamp: FileStamp) -> Path | None:
    check_unchanged(path, stamp)
    had_file = stamp.exists
    atomic_write_text(path, _dump(settings, layout), backup=True)
    return backup_path(path) if had_file else None


def _events_installed(settings: dict[str, Any]) -> list[str]:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    found = []
    for event, sub in HOOK_EVENTS.items():
        for group in hooks.get(event) or []:
            entries = group.get("hooks") if isinstance(group, dict) else None
            if any(isinstance(h, dict) and hook_subcommand(h.get("command")) == sub
                   for h in entries or []):
                found.append(event)
                break
    return found


def default_deny_rules() -> tuple[str, ...]:
    """The deny rules for this user's approval commands and approval key."""
    return approval_deny_rules(key_path().parent)


def install_hooks(path: Path, *, program: str = DEFAULT_PROGRAM,
                  deny: tuple[str, ...] | None = None) -> HookChange:
    """Add our hook to every event that does not have one yet, and the ``deny`` rules
    (default: ``default_deny_rules``); write only if something changed."""
    path = Path(path)
    settings, layout, stamp = _load(path)
    present = set(_events_installed(settings))
    added = [e for e in HOOK_EVENTS if e not in present]
    denied = add_deny_rules(settings, default_deny_rules() if deny is None else deny)
    if not added and not denied:
        return HookChange(path)
    if added:
        hooks = settings.setdefault("hooks", {})
        for event in added:
            hooks.setdefault(event, []).append(_hook_group(event, program))
    backup = _save(path, settings, layout, stamp)
    return HookChange(path, added=tuple(added), backup=backup, denied=denied)


def uninstall_hooks(path: Path, *, deny: tuple[str, ...] | None = None) -> HookChange:
    """Remove every Threadback hook entry and exactly our ``deny`` rules; drop a group, an
    event list or ``hooks`` itself only when removing our entries left it empty."""
    path = Path(path)
    if not path.exists():
        return HookChange(path)
    settings, layout, stamp = _load(path)
    undenied = remove_deny_rules(settings, default_deny_rules() if deny is None else deny)
    removed = _remove_hook_entries(settings)
    if not removed and not undenied:
        return HookChange(path)
    backup = _save(path, settings, layout, stamp)
    return HookChange(path, removed=tuple(removed), backup=backup, undenied=undenied)


def _remove_hook_entries(settings: dict[str, Any]) -> list[str]:
    """Take our hook entries out of ``settings``; the events they were on."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    removed: list[str] = []
    for event in list(hooks):
        groups = hooks[event]
        kept_groups = []
        touched = False
        for group in groups:
            entries = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(entries, list):
                kept_groups.append(group)
                continue
            kept = [h for h in entries if not (isinstance(h, dict) and is_threadback_command(h.get("command")))]
            if len(kept) == len(entries):
                kept_groups.append(group)
                continue
            touched = True
            if kept:
                group["hooks"] = kept
                kept_groups.append(group)
        if not touched:
            continue
        removed.append(event)
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if removed and not hooks:
        del settings["hooks"]
    return removed


def hooks_status(path: Path) -> HooksStatus:
    """Which events have a Threadback hook in ``path``; a broken file is reported, not raised."""
    path = Path(path)
    if not path.exists():
        return HooksStatus(path, False, ())
    try:
        settings, _, _ = _load(path)
    except (SettingsError, OSError) as exc:
        return HooksStatus(path, True, (), str(exc))
    return HooksStatus(path, True, tuple(_events_installed(settings)),
                       denied=deny_rules_present(settings, default_deny_rules()))

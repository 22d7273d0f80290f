"""Add Threadback's hooks to Codex CLI and take them out again.

Codex discovers hooks next to each config layer, in ``hooks.json`` or in inline ``[hooks]``
tables of ``config.toml``: ``$CODEX_HOME`` (``~/.codex``) for the user, ``<repo>/.codex`` for a
project. The shape is Claude Code's: event -> matcher groups -> command handlers, ``timeout`` in
seconds. Sources: Codex's hooks documentation (https://developers.openai.com/codex/hooks) and
github.com/openai/codex ``codex-rs/config/src/hook_config.rs`` (``HooksFile``, ``HookEventsToml``,
``MatcherGroup``, ``HookHandlerConfig``) and ``codex-rs/hooks/src/engine/discovery.rs``::

    {"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "threadback hook prompt", "timeout": 10}]}]}}

We add SessionStart, UserPromptSubmit and Stop (Codex's events for a session's start, each
prompt, and each finished turn); their ``threadback hook`` commands are the Claude Code ones.
Ours go into ``hooks.json`` unless the folder already keeps its hooks in ``config.toml`` (Codex
warns when one layer uses both): then into its ``[hooks]`` tables, comments kept. Each of our
groups is appended after the user's: Codex keys a hook's trust by its position, so the user's
own hooks keep theirs. Install is idempotent; uninstall removes exactly the handlers whose
command is ``threadback hook …`` (``settings.is_threadback_command``) from both files. Codex runs
a new user hook only after the user trusts it (``/hooks`` in the Codex CLI); we never write that
trust ourselves.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.agents.config_files import load_json, load_toml, save_document
from indexer.agents.settings import (
    DEFAULT_PROGRAM,
    HOOK_TIMEOUT_SECONDS,
    HookChange,
    SettingsError,
    hook_subcommand,
    is_threadback_command,
)

# Codex event -> the ``threadback hook`` sub-command it runs.
CODEX_HOOK_EVENTS: dict[str, str] = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "prompt",
    "Stop": "refresh",
}
HOOKS_JSON = "hooks.json"
CONFIG_TOML = "config.toml"


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    """``$CODEX_HOME``, else ``~/.codex``: Codex's user config folder."""
    env = os.environ if env is None else env
    value = env.get("CODEX_HOME", "").strip()
    return Path(value).expanduser() if value else Path.home() / ".codex"


def project_codex_folder(cwd: Path | None = None) -> Path:
    return (Path.cwd() if cwd is None else Path(cwd)) / ".codex"


@dataclass(frozen=True, slots=True)
class CodexHooksStatus:
    path: Path  # the file holding our hooks, or the one install would write
    exists: bool
    installed: tuple[str, ...]
    error: str | None = None
    expected: tuple[str, ...] = tuple(CODEX_HOOK_EVENTS)

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(e for e in self.expected if e not in self.installed)

    @property
    def complete(self) -> bool:
        return not self.missing and self.error is None


def hook_entries(program: str = DEFAULT_PROGRAM) -> dict[str, list[dict[str, Any]]]:
    """Every event's group as ``install_codex_hooks`` adds it (``hooks print --codex-hooks``)."""
    return {event: [_group(event, program)] for event in CODEX_HOOK_EVENTS}


def _command(event: str, program: str) -> str:
    import shlex

    prog = program if program == DEFAULT_PROGRAM else shlex.quote(program)
    return f"{prog} hook {CODEX_HOOK_EVENTS[event]}"


def _group(event: str, program: str) -> dict[str, Any]:
    # No matcher: Codex ignores it for UserPromptSubmit and Stop, and none means "every source"
    # (startup, resume, clear) for SessionStart.
    return {"hooks": [{"type": "command", "command": _command(event, program), "timeout": HOOK_TIMEOUT_SECONDS}]}


# --- the event tables (the same walk for JSON dicts and tomlkit tables) ----------------------


def _event_lists(hooks: Mapping[str, Any]) -> list[tuple[str, list[Any]]]:
    """(event, groups) for every key holding a list (``[hooks.state]`` is Codex's trust record)."""
    return [(event, groups) for event, groups in hooks.items() if isinstance(groups, list)]


def _handlers(group: Any) -> list[Any] | None:
    entries = group.get("hooks") if isinstance(group, Mapping) else None
    return entries if isinstance(entries, list) else None


def _events_installed(hooks: Mapping[str, Any]) -> list[str]:
    found = []
    for event, sub in CODEX_HOOK_EVENTS.items():
        groups = hooks.get(event)
        if isinstance(groups, list) and any(
            isinstance(h, Mapping) and hook_subcommand(h.get("command")) == sub
            for group in groups for h in (_handlers(group) or [])
        ):
            found.append(event)
    return found


def _remove_ours(hooks: MutableMapping[str, Any]) -> list[str]:
    """Drop our handlers; a group or an event list only when our removal emptied it."""
    removed = []
    for event, groups in _event_lists(hooks):
        touched = False
        for i in reversed(range(len(groups))):
            entries = _handlers(groups[i])
            if entries is None:
                continue
            ours = [j for j, h in enumerate(entries) if isinstance(h, Mapping) and is_threadback_command(h.get("command"))]
            if not ours:
                continue
            touched = True
            for j in reversed(ours):
                del entries[j]
            if not entries:
                del groups[i]
        if touched:
            removed.append(event)
            if not groups:
                del hooks[event]
    return removed


# --- the files -------------------------------------------------------------------------------


def _json_hooks(data: dict[str, Any], path: Path, *, create: bool) -> dict[str, Any] | None:
    hooks = data.get("hooks")
    if hooks is None and create:
        hooks = data["hooks"] = {}
    if hooks is not None and not isinstance(hooks, dict):
        raise SettingsError(f'{path}: "hooks" is not an object; it was left unchanged')
    return hooks


def _toml_hooks(doc: Any, path: Path, *, create: bool) -> Any:
    import tomlkit

    hooks = doc.get("hooks")
    if hooks is None and create:
        hooks = tomlkit.table(is_super_table=True)
        doc["hooks"] = hooks
    if hooks is not None and not isinstance(hooks, Mapping):
        raise SettingsError(f"{path}: [hooks] is not a table; it was left unchanged")
    return hooks


def _toml_group(groups: list[Any], event: str, program: str) -> Any:
    """Our group in the TOML form of ``groups``: ``[[hooks.Event]]`` tables or an inline array."""
    import tomlkit
    from tomlkit.items import AoT

    if not isinstance(groups, AoT):
        return _group(event, program)
    group = tomlkit.table()
    handlers = tomlkit.aot()
    for handler in _group(event, program)["hooks"]:
        table = tomlkit.table()
        table.update(handler)
        handlers.append(table)
    group["hooks"] = handlers
    return group


def keeps_hooks_in_toml(folder: Path) -> bool:
    """Whether ``folder/config.toml`` already has hook events (and there is no hooks.json)."""
    if (folder / HOOKS_JSON).exists() or not (folder / CONFIG_TOML).exists():
        return False
    try:
        hooks = load_toml(folder / CONFIG_TOML).data.get("hooks")
    except SettingsError:
        return False
    return isinstance(hooks, Mapping) and bool(_event_lists(hooks))


def hooks_file(folder: Path) -> Path:
    """The file install writes in a Codex config folder."""
    return folder / (CONFIG_TOML if keeps_hooks_in_toml(folder) else HOOKS_JSON)


def install_codex_hooks(path: Path, *, program: str = DEFAULT_PROGRAM) -> HookChange:
    """Add our group to every Codex event of ``path`` (a hooks.json or a config.toml) that has none."""
    path = Path(path)
    toml = path.suffix == ".toml"
    doc = load_toml(path) if toml else load_json(path)
    hooks = (_toml_hooks if toml else _json_hooks)(doc.data, path, create=True)
    assert hooks is not None  # create=True makes the table when there is none
    present = set(_events_installed(hooks))
    added = [e for e in CODEX_HOOK_EVENTS if e not in present]
    if not added:
        return HookChange(path)
    for event in added:
        groups = hooks.get(event)
        if not isinstance(groups, list):
            if groups is not None:
                raise SettingsError(f"{path}: hooks.{event} is not a list; it was left unchanged")
            import tomlkit

            groups = hooks[event] = tomlkit.aot() if toml else []
        groups.append(_toml_group(groups, event, program) if toml else _group(event, program))
    backup = save_document(doc)
    return HookChange(path, added=tuple(added), backup=backup)


def uninstall_codex_hooks(path: Path) -> HookChange:
    """Remove every Threadback handler from ``path``; ``[hooks]`` itself goes only if emptied."""
    path = Path(path)
    if not path.exists():
        return HookChange(path)
    toml = path.suffix == ".toml"
    doc = load_toml(path) if toml else load_json(path)
    hooks = (_toml_hooks if toml else _json_hooks)(doc.data, path, create=False)
    if hooks is None:
        return HookChange(path)
    removed = _remove_ours(hooks)
    if not removed:
        return HookChange(path)
    if not hooks:
        del doc.data["hooks"]
    backup = save_document(doc)
    return HookChange(path, removed=tuple(removed), backup=backup)


def codex_hooks_status(path: Path) -> CodexHooksStatus:
    """Which Codex events have our hook in ``path``; a broken file is reported, not raised."""
    path = Path(path)
    if not path.exists():
        return CodexHooksStatus(path, False, ())
    toml = path.suffix == ".toml"
    try:
        doc = load_toml(path) if toml else load_json(path)
        hooks = (_toml_hooks if toml else _json_hooks)(doc.data, path, create=False)
    except (SettingsError, OSError) as exc:
        return CodexHooksStatus(path, True, (), str(exc))
    return CodexHooksStatus(path, True, tuple(_events_installed(hooks or {})))


def folder_status(folder: Path) -> CodexHooksStatus:
    """Our hooks in a Codex config folder, whichever of its two files holds them."""
    statuses = [codex_hooks_status(folder / name) for name in (HOOKS_JSON, CONFIG_TOML)]
    holding = [s for s in statuses if s.installed or s.error]
    if len(holding) == 1:
        return holding[0]
    if holding:
        installed = tuple(e for e in CODEX_HOOK_EVENTS if any(e in s.installed for s in holding))
        errors = "; ".join(s.error for s in holding if s.error) or None
        return CodexHooksStatus(holding[0].path, True, installed, errors)
    target = hooks_file(folder)
    return next(s for s in statuses if s.path == target)


def uninstall_from_folder(folder: Path) -> list[HookChange]:
    """Take our hooks out of both of a Codex folder's files."""
    return [change for name in (HOOKS_JSON, CONFIG_TOML)
            if (change := uninstall_codex_hooks(folder / name)).changed]

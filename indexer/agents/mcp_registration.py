"""Register ``threadback mcp`` as an MCP server with Claude Code and Codex, and take it out again.

- Claude Code keeps user-scope servers in ``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json``)
  and project-scope ones in ``<project>/.mcp.json``, both under ``"mcpServers"``: what
  ``claude mcp add --scope user|project threadback -- threadback mcp`` writes
  (https://docs.claude.com/en/docs/claude-code/mcp, "MCP installation scopes")::

      {"mcpServers": {"threadback": {"type": "stdio", "command": "threadback", "args": ["mcp"], "env": {}}}}

- Codex reads ``[mcp_servers.<name>]`` tables from ``config.toml`` (``$CODEX_HOME``, a project's
  ``.codex/``): ``command``, ``args`` (https://developers.openai.com/codex/mcp; github.com/openai/codex
  ``codex-rs/config/src/mcp_types.rs``, ``RawMcpServerConfig``)::

      [mcp_servers.threadback]
      command = "threadback"
      args = ["mcp"]

Ours is the entry named ``threadback`` whose command is a ``threadback`` executable run with
``mcp``. Another entry of that name is the user's: it is reported and never replaced. Only that
one key is added or removed; the rest of each file is written back as it was.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

from indexer.agents.codex_hooks import CONFIG_TOML, codex_home
from indexer.agents.config_files import TomlDocument, load_json, load_toml, save_document, save_json, save_toml
from indexer.agents.settings import DEFAULT_PROGRAM, SettingsError

SERVER_NAME = "threadback"
MCP_ARGS = ["mcp"]
_PROGRAM = re.compile(r"^(?:.*[/\\])?threadback(?:\.exe)?$")


@dataclass(frozen=True, slots=True)
class McpChange:
    path: Path
    added: bool = False
    removed: bool = False
    backup: Path | None = None

    @property
    def changed(self) -> bool:
        return self.added or self.removed


@dataclass(frozen=True, slots=True)
class McpStatus:
    path: Path
    exists: bool
    installed: bool
    error: str | None = None  # the file is unreadable, or holds someone else's "threadback"


def claude_user_config(env: Mapping[str, str] | None = None) -> Path:
    """``$CLAUDE_CONFIG_DIR/.claude.json``, else ``~/.claude.json``."""
    env = os.environ if env is None else env
    if env.get("CLAUDE_CONFIG_DIR"):
        return Path(env["CLAUDE_CONFIG_DIR"]).expanduser() / ".claude.json"
    return Path.home() / ".claude.json"


def claude_project_config(cwd: Path | None = None) -> Path:
    return (Path.cwd() if cwd is None else Path(cwd)) / ".mcp.json"


def codex_user_config(env: Mapping[str, str] | None = None) -> Path:
    return codex_home(env) / CONFIG_TOML


def is_our_server(entry: object) -> bool:
    if not isinstance(entry, Mapping):
        return False
    command, args = entry.get("command"), entry.get("args")
    return (isinstance(command, str) and bool(_PROGRAM.match(command.strip()))
            and isinstance(args, list) and list(args[:1]) == MCP_ARGS)


def claude_entry(program: str = DEFAULT_PROGRAM) -> dict[str, object]:
    return {"type": "stdio", "command": program, "args": list(MCP_ARGS), "env": {}}


def _servers(data: Mapping[str, object], key: str, path: Path) -> MutableMapping[str, object] | None:
    servers = data.get(key)
    if servers is not None and not isinstance(servers, MutableMapping):
        raise SettingsError(f"{path}: {key!r} is not a table of servers; it was left unchanged")
    return servers


def _refuse_foreign(servers: Mapping[str, object] | None, path: Path) -> bool:
    """Whether ours is there already; raises when the name is taken by another server."""
    if servers is None or SERVER_NAME not in servers:
        return False
    if is_our_server(servers[SERVER_NAME]):
        return True
    raise SettingsError(f"{path} already has an MCP server named {SERVER_NAME!r} that runs something else; "
                        "it was left unchanged")


def _is_toml(path: Path) -> bool:
    return path.suffix == ".toml"


def install_mcp(path: Path, *, program: str = DEFAULT_PROGRAM) -> McpChange:
    """Add our server to ``path``: Codex's ``config.toml`` or a Claude Code JSON file."""
    path = Path(path)
    if _is_toml(path):
        import tomlkit

        doc = load_toml(path)
        servers = _servers(doc.data, "mcp_servers", path)
        if _refuse_foreign(servers, path):
            return McpChange(path)
        appended = _appended_table(doc.dumps(), program)
        if appended is not None:
            return McpChange(path, added=True, backup=save_toml(doc, appended))
        if servers is None:
            servers = doc.data["mcp_servers"] = tomlkit.table(is_super_table=True)
        from tomlkit.items import InlineTable

        table = tomlkit.inline_table() if isinstance(servers, InlineTable) else tomlkit.table()
        table["command"] = program
        table["args"] = list(MCP_ARGS)
        servers[SERVER_NAME] = table
        return McpChange(path, added=True, backup=save_toml(doc))
    json_doc = load_json(path)
    servers = _servers(json_doc.data, "mcpServers", path)
    if _refuse_foreign(servers, path):
        return McpChange(path)
    json_doc.data.setdefault("mcpServers", {})[SERVER_NAME] = claude_entry(program)
    return McpChange(path, added=True, backup=save_json(json_doc))


def uninstall_mcp(path: Path) -> McpChange:
    """Remove our server (only ours) from ``path``; the servers table goes only if emptied."""
    path = Path(path)
    if not path.exists():
        return McpChange(path)
    key = "mcp_servers" if _is_toml(path) else "mcpServers"
    doc = load_toml(path) if _is_toml(path) else load_json(path)
    servers = _servers(doc.data, key, path)
    if servers is None or not is_our_server(servers.get(SERVER_NAME)):
        return McpChange(path)
    if isinstance(doc, TomlDocument) and (cut := _without_appended_table(doc.dumps())) is not None:
        return McpChange(path, removed=True, backup=save_toml(doc, cut))
    del servers[SERVER_NAME]
    if not servers:
        del doc.data[key]
    backup = save_document(doc)
    return McpChange(path, removed=True, backup=backup)


# Codex's config.toml is edited as text where it can be: our table appended at the end after a
# blank line, and that same text cut out again, so install then uninstall gives back the same
# bytes (tomlkit, the fallback, leaves a blank line behind).
_OUR_TABLE = re.compile(r"\n?\[mcp_servers\.threadback\]\ncommand = (?:\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*')\n"
                        r"args = \[\"mcp\"\]\n")


def _table_text(program: str) -> str:
    import tomlkit

    return f"\n[mcp_servers.{SERVER_NAME}]\ncommand = {tomlkit.item(program).as_string()}\nargs = [\"mcp\"]\n"


def _only_ours_added(without: str, with_ours: str, program: str | None = None) -> bool:
    """``with_ours`` parses as ``without`` plus our server (run by ``program``, if given)."""
    import tomllib

    try:
        base, extended = tomllib.loads(without), tomllib.loads(with_ours)
    except tomllib.TOMLDecodeError:
        return False
    servers = extended.get("mcp_servers")
    ours = servers.pop(SERVER_NAME, None) if isinstance(servers, dict) else None
    if servers == {} and "mcp_servers" not in base:
        del extended["mcp_servers"]
    return (isinstance(ours, dict) and is_our_server(ours) and (program is None or ours.get("command") == program)
            and extended == base)


def _appended_table(text: str, program: str) -> str | None:
    if text and not text.endswith("\n"):
        text += "\n"
    appended = text + (_table_text(program) if text else _table_text(program).lstrip("\n"))
    return appended if _only_ours_added(text, appended, program) else None


def _without_appended_table(text: str) -> str | None:
    found = list(_OUR_TABLE.finditer(text))
    if len(found) != 1:
        return None
    cut = text[:found[0].start()] + text[found[0].end():]
    return cut if _only_ours_added(cut, text) else None


def mcp_status(path: Path) -> McpStatus:
    path = Path(path)
    if not path.exists():
        return McpStatus(path, False, False)
    try:
        doc = load_toml(path) if _is_toml(path) else load_json(path)
        servers = _servers(doc.data, "mcp_servers" if _is_toml(path) else "mcpServers", path)
        return McpStatus(path, True, _refuse_foreign(servers, path))
    except (SettingsError, OSError) as exc:
        return McpStatus(path, True, False, str(exc))

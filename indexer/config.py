"""Where each agent's logs are: defaults, the config file, and command-line overrides.

Config file (``~/.config/threadback/config.toml``, or ``$THREADBACK_CONFIG``)::

    [roots]
    claude-code = ["~/.claude/projects", "/mnt/old-laptop/.claude/projects"]
    codex = ["~/.codex/sessions", "~/.codex/archived_sessions"]
    pi = ["~/.pi/agent/sessions"]
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from indexer.paths import config_path
from indexer.sources import PARSERS


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class SourceRoots:
    """Folders to scan, per agent."""

    roots: dict[str, tuple[Path, ...]] = field(default_factory=dict)

    def items(self):
        return self.roots.items()

    def all_paths(self) -> list[Path]:
        return [p for paths in self.roots.values() for p in paths]


def load_roots(
    overrides: dict[str, list[str]] | None = None,
    config_file: Path | None = None,
) -> SourceRoots:
    """Defaults, replaced per agent by the config file, replaced per agent by ``overrides``."""
    roots: dict[str, tuple[Path, ...]] = {
        agent: tuple(module.default_roots()) for agent, module in PARSERS.items()
    }
    path = config_file or config_path()
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config {path}: {exc}") from exc
        for agent, value in (data.get("roots") or {}).items():
            if agent not in PARSERS:
                raise ConfigError(f"{path}: unknown agent {agent!r} in [roots] (known: {', '.join(PARSERS)})")
            values = [value] if isinstance(value, str) else list(value)
            roots[agent] = tuple(Path(v).expanduser() for v in values)
    for agent, values in (overrides or {}).items():
        if values:
            roots[agent] = tuple(Path(v).expanduser() for v in values)
    return SourceRoots(roots)


def only_roots(mapping: dict[str, list[Path | str]]) -> SourceRoots:
    """Exactly these folders and no defaults (tests, the demo data, ``--only``)."""
    return SourceRoots({a: tuple(Path(p) for p in ps) for a, ps in mapping.items()})

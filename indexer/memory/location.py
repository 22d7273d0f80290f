"""Which memory folder to open, and why (the UI shows the reason).

Order: an explicit ``--memory-dir``, then ``$THREADBACK_MEMORY_DIR``, then ``<cwd>/memory/`` when
it already holds a tier file, then the global ``data_dir()/memory``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from indexer.paths import data_dir

TIER_FILES = ("fact.yml", "episodic.jsonl", "scratchpad.md", "associations.jsonl")
ENV_VAR = "THREADBACK_MEMORY_DIR"


def global_memory_dir() -> Path:
    """The user's default memory folder, shared by all projects."""
    return data_dir() / "memory"


def project_memory_dir(cwd: Path) -> Path:
    """The project's own memory folder (it may not exist yet)."""
    return Path(cwd) / "memory"


def holds_tier_file(folder: Path) -> bool:
    return any((Path(folder) / name).is_file() for name in TIER_FILES)


def resolve_memory_dir(
    explicit: str | Path | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[Path, str]:
    """Return ``(folder, reason)``; the folder need not exist yet."""
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit).expanduser(), "--memory-dir"
    if env.get(ENV_VAR):
        return Path(env[ENV_VAR]).expanduser(), f"${ENV_VAR}"
    project = project_memory_dir(Path.cwd() if cwd is None else Path(cwd))
    if holds_tier_file(project):
        return project, "project memory/ folder in the current directory"
    return global_memory_dir(), "global default under the data dir"

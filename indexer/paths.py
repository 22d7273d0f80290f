"""Where Hindsight keeps its own files (index, default memory folder, usage log, config)."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """``$HINDSIGHT_HOME``, else ``$XDG_DATA_HOME/hindsight``, else ``~/.local/share/hindsight``."""
    if os.environ.get("HINDSIGHT_HOME"):
        return Path(os.environ["HINDSIGHT_HOME"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "hindsight"


def config_path() -> Path:
    """``$HINDSIGHT_CONFIG``, else ``$XDG_CONFIG_HOME/hindsight/config.toml``."""
    if os.environ.get("HINDSIGHT_CONFIG"):
        return Path(os.environ["HINDSIGHT_CONFIG"]).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "hindsight" / "config.toml"


def default_db_path() -> Path:
    """``$HINDSIGHT_DB``, else ``<data dir>/index.sqlite3``."""
    if os.environ.get("HINDSIGHT_DB"):
        return Path(os.environ["HINDSIGHT_DB"]).expanduser()
    return data_dir() / "index.sqlite3"

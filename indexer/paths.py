"""Where Threadback keeps its own files (index, default memory folder, usage log, config)."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """``$THREADBACK_HOME``, else ``$XDG_DATA_HOME/threadback``, else ``~/.local/share/threadback``."""
    if os.environ.get("THREADBACK_HOME"):
        return Path(os.environ["THREADBACK_HOME"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "threadback"


def config_path() -> Path:
    """``$THREADBACK_CONFIG``, else ``$XDG_CONFIG_HOME/threadback/config.toml``."""
    if os.environ.get("THREADBACK_CONFIG"):
        return Path(os.environ["THREADBACK_CONFIG"]).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "threadback" / "config.toml"


def default_db_path() -> Path:
    """``$THREADBACK_DB``, else ``<data dir>/index.sqlite3``."""
    if os.environ.get("THREADBACK_DB"):
        return Path(os.environ["THREADBACK_DB"]).expanduser()
    return data_dir() / "index.sqlite3"

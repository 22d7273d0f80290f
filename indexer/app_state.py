"""What the app remembers between runs (``app-state.json`` in the data dir): questions it asked
once and should not ask again. Unknown keys are kept; a damaged file counts as empty."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from indexer.config import data_dir
from indexer.util.fileio import atomic_write_text

STATE_FILE = "app-state.json"


def app_state_path() -> Path:
    return data_dir() / STATE_FILE


@dataclass
class AppState:
    demo_offered: bool = False  # the "no agent logs: open the demo?" question was answered
    other: dict[str, Any] = field(default_factory=dict)  # keys a newer version wrote

    @classmethod
    def load(cls, path: Path | None = None) -> AppState:
        try:
            data = json.loads((path or app_state_path()).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        offered = data.pop("demo_offered", False)
        return cls(demo_offered=offered is True, other=data)

    def save(self, path: Path | None = None) -> None:
        """Written atomically; a data dir that cannot be written is not worth an error."""
        target = path or app_state_path()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps({**self.other, "demo_offered": self.demo_offered}, indent=2) + "\n"
            atomic_write_text(target, text, backup=False)
        except OSError:
            pass

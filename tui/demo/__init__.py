"""Bundled real sample sessions for ``threadback --demo`` (origins in SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

DEMO_DIR = Path(__file__).parent


def demo_roots_mapping() -> dict[str, list[Path]]:
    return {
        "claude-code": [DEMO_DIR / "claude-code" / "projects"],
        "codex": [DEMO_DIR / "codex" / "sessions"],
        "pi": [DEMO_DIR / "pi" / "sessions"],
    }

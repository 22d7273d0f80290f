"""Bundled real sample sessions and memory for ``threadback --demo`` (origins in SOURCES.md), and
how to open them: a private index file and a private copy of the memory folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from indexer import Index, SourceRoots, only_roots
from indexer.config import data_dir
from indexer.sources import AGENTS

DEMO_DIR = Path(__file__).parent


def demo_roots_mapping() -> dict[str, list[Path | str]]:
    """Each agent's sample logs, laid out as under the agent's home (``claude-code/projects``)."""
    return {agent.name: [DEMO_DIR / agent.name / agent.log_folder] for agent in AGENTS}


def demo_memory_dir() -> Path:
    """A private copy of the sample memory folder, so trying the demo never edits the package."""
    folder = data_dir() / "demo-memory"
    if not folder.exists():
        shutil.copytree(DEMO_DIR / "memory", folder)
    return folder


def demo_db_path() -> Path:
    """The demo's own index file, apart from the person's index."""
    return data_dir() / "demo.sqlite3"


def demo_roots() -> SourceRoots:
    return only_roots(demo_roots_mapping())


def demo_index_and_roots() -> tuple[Index, SourceRoots]:
    """The demo's own index file and the bundled sample logs."""
    path = demo_db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return Index(path), demo_roots()

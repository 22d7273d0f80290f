"""``threadback`` with no sub-command: pick the index, the log folders and the memory folder,
build the app, run it."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from indexer import ConfigError, Index, IndexError_, SourceRoots, only_roots
from indexer.config import data_dir
from tui.cli.main import EXIT_INDEX, EXIT_OK, EXIT_USAGE
from tui.cli.index import db_path_of, roots_of
from tui.demo import DEMO_DIR, demo_roots_mapping


def demo_memory_dir() -> Path:
    """A private copy of the sample memory folder, so trying the demo never edits the package."""
    folder = data_dir() / "demo-memory"
    if not folder.exists():
        shutil.copytree(DEMO_DIR / "memory", folder)
    return folder


def demo_index_and_roots() -> tuple[Index, SourceRoots]:
    """The demo's own index file and the bundled sample logs."""
    path = data_dir() / "demo.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    return Index(path), only_roots(demo_roots_mapping())


def launch(args: argparse.Namespace) -> int:
    memory_dir = getattr(args, "memory_dir", None)
    try:
        if args.demo:
            index, roots = demo_index_and_roots()
            memory_dir = memory_dir or demo_memory_dir()
        else:
            path = db_path_of(args)
            roots = roots_of(args)
            path.parent.mkdir(parents=True, exist_ok=True)
            index = Index(path)
    except ConfigError as exc:
        print(f"threadback: {exc}")
        return EXIT_USAGE

    from tui.app import make_app

    try:
        make_app(index, roots, demo=bool(args.demo), memory_dir=Path(memory_dir) if memory_dir else None).run()
    except IndexError_ as exc:
        print(f"threadback: {exc}")
        return EXIT_INDEX
    finally:
        index.close()
    return EXIT_OK

"""``threadback`` with no sub-command: pick the index, the log folders and the memory folder,
build the app, run it (``--demo``: the bundled sample sessions)."""

from __future__ import annotations

import argparse
from pathlib import Path

from indexer import ConfigError, Index, IndexError_
from indexer.config import config_path, live_updates_enabled
from tui.cli.exits import INDEX, USAGE, ErrorExit, command
from tui.cli.options import db_path_of, roots_of
from tui.demo import demo_index_and_roots, demo_memory_dir


@command(ErrorExit(ConfigError, USAGE), ErrorExit(IndexError_, INDEX))
def launch(args: argparse.Namespace) -> int:
    memory_dir = getattr(args, "memory_dir", None)
    if args.demo:
        index, roots = demo_index_and_roots()
        memory_dir = memory_dir or demo_memory_dir()
    else:
        path = db_path_of(args)
        roots = roots_of(args)
        path.parent.mkdir(parents=True, exist_ok=True)
        index = Index(path)

    from tui.app import make_app  # Textual loads only for the app, not for the other commands

    live_off = "--no-live" if getattr(args, "no_live", False) else (
        None if live_updates_enabled() else f"[live] enabled = false in {config_path()}")
    try:
        make_app(index, roots, demo=bool(args.demo), memory_dir=Path(memory_dir) if memory_dir else None,
                 live=live_off is None, live_off_reason=live_off).run()
    finally:
        index.close()

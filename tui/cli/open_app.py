"""``threadback`` with no sub-command: pick the index, the log folders and the memory folder,
build the app, run it (``--demo``: the bundled sample sessions)."""

from __future__ import annotations

import argparse
from pathlib import Path

from indexer import ConfigError, Index
from indexer.config import check_config, config_path, live_updates_enabled, only_roots
from tui.cli.exits import OK, command
from tui.cli.options import db_path_of, roots_of
from tui.demo import demo_index_and_roots, demo_memory_dir


from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from tui.app import ThreadbackApp


@command()
def launch(args: argparse.Namespace) -> int:
    app = app_of(args)
    try:
        app.run()
    finally:
        app.context.index.close()
    return OK


def app_of(args: argparse.Namespace) -> ThreadbackApp:
    """The app the command line asks for. A config file that cannot be used does not keep it
    shut: it opens on the index as it is, runs no index (the file may name the folders to read)
    and says why once."""
    memory_dir = getattr(args, "memory_dir", None)
    problem = None
    if args.demo:
        index, roots = demo_index_and_roots()
        memory_dir = memory_dir or demo_memory_dir()
    else:
        path = db_path_of(args)
        try:
            check_config()
        except ConfigError as exc:
            problem = f"{exc}. Nothing is indexed until it is fixed; `threadback index` says the same."
        roots = roots_of(args) if problem is None else only_roots({})
        path.parent.mkdir(parents=True, exist_ok=True)
        index = Index(path)

    from tui.app import make_app  # Textual loads only for the app, not for the other commands

    live_off = "--no-live" if getattr(args, "no_live", False) else "the config file cannot be read" if problem else (
        None if live_updates_enabled() else f"[live] enabled = false in {config_path()}")
    return make_app(index, roots, demo=bool(args.demo), memory_dir=Path(memory_dir) if memory_dir else None,
                    live=live_off is None, live_off_reason=live_off, refresh_on_start=problem is None,
                    config_problem=problem)

"""``threadback`` with no sub-command: pick the index, the log folders and the memory folder,
build the app, run it (``--demo``: the bundled sample sessions)."""

from __future__ import annotations

import argparse
from pathlib import Path

from indexer import ConfigError, Index
from indexer.config import check_config, config_path, live_updates_enabled, only_roots
from tui.cli.exits import OK, command
from tui.cli.options import db_path_of, memory_dir_of, roots_of


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
    problem = None
    if not args.demo:  # the demo reads no folder a config file names
        try:
            check_config()
        except ConfigError as exc:
            problem = f"{exc}. Nothing is indexed until it is fixed; `threadback index` says the same."
    roots = roots_of(args) if problem is None else only_roots({})
    path = db_path_of(args)
    path.parent.mkdir(parents=True, exist_ok=True)
    index = Index(path)
    memory_dir = memory_dir_of(args)

    from tui.app import make_app  # Textual loads only for the app, not for the other commands

    live_off = "--no-live" if getattr(args, "no_live", False) else "the config file cannot be read" if problem else (
        None if live_updates_enabled() else f"[live] enabled = false in {config_path()}")
    return make_app(index, roots, demo=bool(args.demo), memory_dir=Path(memory_dir) if memory_dir else None,
                    live=live_off is None, live_off_reason=live_off, refresh_on_start=problem is None,
                    config_problem=problem)

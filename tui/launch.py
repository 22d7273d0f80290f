"""``hindsight`` with no sub-command: pick the index and the log folders, build the app, run it."""

from __future__ import annotations

import argparse

from indexer import ConfigError, Index, IndexError_, only_roots
from indexer.paths import data_dir
from tui.cli import EXIT_INDEX, EXIT_OK, EXIT_USAGE
from tui.cli_index import db_path_of, roots_of
from tui.demo import demo_roots_mapping


def launch(args: argparse.Namespace) -> int:
    try:
        if args.demo:
            path = data_dir() / "demo.sqlite3"
            roots = only_roots(demo_roots_mapping())
        else:
            path = db_path_of(args)
            roots = roots_of(args)
    except ConfigError as exc:
        print(f"hindsight: {exc}")
        return EXIT_USAGE
    path.parent.mkdir(parents=True, exist_ok=True)

    from tui.app import make_app

    index = Index(path)
    try:
        make_app(index, roots, demo=bool(args.demo)).run()
    except IndexError_ as exc:
        print(f"hindsight: {exc}")
        return EXIT_INDEX
    finally:
        index.close()
    return EXIT_OK

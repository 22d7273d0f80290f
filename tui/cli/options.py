"""The options every index command shares (``--db``, each agent's log folder flag) and what they
resolve to.

A search opens the index by its ``str`` path (``db_file_of``): ``pathlib`` (~4 ms with
``urllib.parse`` and ``ipaddress``) is loaded by the commands that ask for a ``Path``.
"""

from __future__ import annotations

import os

from indexer.config import default_db_str
from indexer.sources import AGENTS, CLAUDE_CODE
from tui.cli.exits import BUSY, DISK_FULL, INDEX, READ_ONLY, CommandError

TYPE_CHECKING = False
if TYPE_CHECKING:  # the index and the config files are loaded where a command needs them
    import argparse
    from pathlib import Path
    from types import SimpleNamespace

    from indexer import IndexError_
    from indexer.agents.usage import UsageEvent
    from indexer.config import SourceRoots
    from indexer.index import Index


def _dest(agent_name: str) -> str:
    return f"dirs_{agent_name.replace('-', '_')}"


def add_global_options(parser: argparse.ArgumentParser) -> None:
    import argparse

    parser.add_argument("--db", metavar="PATH", help="index file (default: $THREADBACK_DB or ~/.local/share/threadback/index.sqlite3)")
    for agent in AGENTS:
        parser.add_argument(agent.dir_option, action="append", metavar="DIR", dest=_dest(agent.name),
                            help=f"{agent.name} log folder (repeatable; replaces the default)")
    parser.add_argument("--demo", action="store_true",
                        help="the bundled demo sessions and memory, in an index of their own (any command)")
    parser.add_argument("--no-live", dest="no_live", action="store_true",
                        help="do not watch the logs while the app is open (new lines show after ctrl+r)")
    parser.add_argument("--memory-dir", dest="memory_dir", metavar="DIR", default=argparse.SUPPRESS,
                        help="memory folder for the app")


def add_index_options(p: argparse.ArgumentParser) -> None:
    """Options every index command accepts after its name too (``threadback search --db X``)."""
    import argparse

    p.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS, help="index file")
    for agent in AGENTS:
        p.add_argument(agent.dir_option, action="append", metavar="DIR", dest=_dest(agent.name),
                       default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def db_path_of(args: argparse.Namespace) -> Path:
    from pathlib import Path

    return Path(db_file_of(args))


def db_file_of(args: argparse.Namespace | SimpleNamespace) -> str:  # SimpleNamespace: a quick_args line
    """The demo's own index with ``--demo`` (never the person's, whatever else is given), else
    ``--db`` (with ``~`` expanded), else the default index file."""
    if getattr(args, "demo", False):
        from tui.demo import demo_db_path

        return str(demo_db_path())
    if getattr(args, "db", None):
        return os.path.expanduser(args.db)
    return default_db_str()


def roots_of(args: argparse.Namespace) -> SourceRoots:
    """The log folders: the bundled samples with ``--demo``; else defaults, the config file,
    then these flags (raises ``ConfigError``)."""
    from indexer.config import load_roots

    if getattr(args, "demo", False):
        from tui.demo import demo_roots

        return demo_roots()
    overrides = {}
    for agent in AGENTS:
        values = getattr(args, _dest(agent.name), None)
        if values:
            overrides[agent.name] = values
    return load_roots(overrides)


def memory_dir_of(args: argparse.Namespace) -> str | None:
    """``--memory-dir``, else the demo's own copy of its memory with ``--demo``, else None (the
    memory folder the config and the project choose)."""
    given = getattr(args, "memory_dir", None)
    if given or not getattr(args, "demo", False):
        return given
    from tui.demo import demo_memory_dir

    return str(demo_memory_dir())


def record_call(args: argparse.Namespace, event: UsageEvent) -> None:
    """A command's call in the usage log (``threadback usage``), unless it ran with ``--demo``:
    trying the demo is not how anyone used Threadback on their history."""
    if not getattr(args, "demo", False):
        from indexer.agents.usage import record_usage

        record_usage(event)


def claude_dirs_of(args: argparse.Namespace) -> list[str] | None:
    """The ``--claude-dir`` folders given, if any (``rules import`` reads Claude Code's notes there)."""
    return getattr(args, _dest(CLAUDE_CODE), None)


def open_existing_index(args: argparse.Namespace) -> Index:
    """The index, opened read-only (so it works on read-only media) and checked; raises
    ``CommandError`` saying why it cannot be used (``ConfigError`` for a broken config file). An index of an older schema is upgraded
    once first, where it can be written."""
    from indexer import IndexError_, IndexOutdatedError  # the index's errors: loaded with the index
    from indexer.config import check_config
    from indexer.index import Index

    check_config()  # a broken config file is reported by every command alike (``ConfigError``)
    path = db_file_of(args)
    if not os.path.exists(path) and getattr(args, "demo", False):
        _index_the_demo(args)
    if not os.path.exists(path):
        raise CommandError(f"no index at {db_path_of(args)} yet: run `threadback index` first", INDEX)
    index = Index(path, readonly=True)
    try:
        try:
            index.check()
        except IndexOutdatedError:
            index.close()
            with Index(path) as upgrading:
                upgrading.check()  # opening it writable migrates it
            index.check()
    except IndexError_ as exc:
        raise CommandError(str(exc), exit_code_of(exc)) from None
    return index


def _index_the_demo(args: argparse.Namespace) -> None:
    """A first command with ``--demo`` indexes the bundled sessions (a second or two), so
    ``threadback --demo search WORDS`` answers at once; ``threadback --demo index`` refreshes it."""
    import sys

    from indexer.index import Index

    path = db_path_of(args)
    path.parent.mkdir(parents=True, exist_ok=True)
    print("indexing the demo sessions (first use)...", file=sys.stderr)
    with Index(path) as index:
        index.update(roots_of(args))


def exit_code_of(exc: IndexError_) -> int:
    """The exit code for an index problem (see ``tui.cli.exits``)."""
    from indexer import IndexBusyError, IndexFullError, IndexLockedError, IndexReadOnlyError

    if isinstance(exc, IndexReadOnlyError):
        return READ_ONLY
    if isinstance(exc, IndexFullError):
        return DISK_FULL
    if isinstance(exc, (IndexLockedError, IndexBusyError)):
        return BUSY
    return INDEX

"""The full ``threadback`` command line (argparse): every verb's options, its help and its
errors. Built for a line ``tui.cli.quick_args`` does not take, and only with the module of the
verb the line names (``tui.cli.verbs``); the hot verbs' plain lines never import argparse.
"""

from __future__ import annotations

import argparse
import importlib

from tui.cli.verbs import VERB_TABLE, VERBS


def _version() -> str:
    """The installed distribution's version (the source of truth is pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("threadback")
    except PackageNotFoundError:
        return "unknown (not installed)"


class _VersionAction(argparse.Action):
    """``--version``: the package metadata is read only when asked (it costs ~10 ms to load)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"threadback {_version()}")
        parser.exit()


def build_parser(argv: list[str] | None = None, *, every_verb: bool = False) -> argparse.ArgumentParser:
    """The command line. Given ``argv``, only the module of the verb it names is imported. When
    it names none or an unknown one, each verb is only listed, from ``tui.cli.verbs`` (so the
    help, "invalid choice" and the app's options load no command module); ``every_verb``
    registers them all in full."""
    from tui.cli.options import add_global_options

    parser = argparse.ArgumentParser(
        prog="threadback",
        description="Search and remember your coding agents' history.",
    )
    parser.add_argument("--version", action=_VersionAction)
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    verb = None if argv is None else _verb_of(parser, argv)
    if verb in VERBS:
        importlib.import_module(VERBS[verb]).register(sub)
    elif every_verb:
        for name in dict.fromkeys(VERBS.values()):
            importlib.import_module(name).register(sub)
    else:
        for listed, (_, text) in VERB_TABLE.items():
            sub.add_parser(listed, help=text)
    return parser


def _verb_of(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """The first word of ``argv`` that is not a global option or an option's value (None after
    ``-h``: the top-level help lists every verb)."""
    takes_value = {flag for flag, action in parser._option_string_actions.items() if action.nargs != 0}
    tokens = iter(argv)
    for token in tokens:
        if token in ("-h", "--help"):
            return None
        if token == "--":
            return next(tokens, None)
        if not token.startswith("-") or token == "-":
            return token
        if token in takes_value:
            next(tokens, None)
    return None

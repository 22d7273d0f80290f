"""The quick reader of ``search`` and ``hook`` lines (``tui.cli.quick_args``) must read every
line it takes exactly as the full parser does, and leave every other line to it: compared on
chosen lines and on thousands of lines drawn from the tokens that make the cases differ."""

from __future__ import annotations

import contextlib
import io
import random

import pytest

from indexer.sources import AGENTS
from tui.cli.hook import cmd_hook
from tui.cli.index import cmd_search
from tui.cli.main import build_parser
from tui.cli.quick_args import quick_parse

DIR_FLAG = AGENTS[0].dir_option


def full_parse(argv: list[str]):
    """The full parser's Namespace as a dict, or None where it refuses the line."""
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            args = build_parser(every_verb=True).parse_args(argv)
    except SystemExit:
        return None
    return vars(args)


def quick(argv: list[str]):
    read = quick_parse(argv)
    if read is None:
        return None
    verb, args = read
    args.func = {"search": cmd_search, "hook": cmd_hook}[verb]
    return vars(args)


@pytest.mark.parametrize("argv", [
    ["search", "timeout"],
    ["search", "websocket", "timeout", "--json"],
    ["--db", "/x/i.sqlite3", "search", "-1", "websocket"],
    ["--db", "/x/i.sqlite3", "search", "--db", "/y/j.sqlite3", "-n", "5", "a", "b"],
    ["search", "-n", "5", "foo", "--json", "5"],  # the full parser's reorder: ['5', 'foo']
    ["search", "a", "-C", "2", "b", "--exclude-session", "s1", "--exclude-session", "s2", "c"],
    [DIR_FLAG, "/logs/a", "search", DIR_FLAG, "/logs/b", "word"],
    ["--demo", "--no-live", "--memory-dir", "/m", "search", "x", "--budget", "900", "--show-secrets"],
    ["hook", "prompt"],
    ["hook", "--text", "session-start"],
    ["--db", "/x/i.sqlite3", "hook", "refresh", "--text"],
    ["--memory-dir", "/m", "hook", "session-start"],
])
def test_a_plain_line_reads_as_the_full_parser_reads_it(argv):
    assert quick_parse(argv) is not None
    assert quick(argv) == full_parse(argv)


@pytest.mark.parametrize("argv", [
    [], ["--help"], ["search", "--help"], ["search", "-h", "x"], ["--version"],
    ["search"], ["search", "--json"],  # nothing to search for: the command says so
    ["search", "--limit=5", "x"], ["search", "-n5", "x"], ["search", "--lim", "5", "x"],
    ["search", "-n", "five", "x"], ["search", "-n", "-5", "x"], ["search", "nginx", "-s", "reload"],
    ["search", "--", "-n"], ["search", "x", "--demo"], ["--db=/x", "search", "x"], ["--d", "/x", "search", "x"],
    ["hook"], ["hook", "nope"], ["hook", "prompt", "extra"], ["hook", "prompt", "--db", "/x"],
    ["sessions"], ["show", "abc"], ["memory", "list"],
])
def test_any_other_line_is_left_to_the_full_parser(argv):
    assert quick_parse(argv) is None


PLAIN = ["word", "5", "x y", "", "prompt", "-n", "-C", "--json", "-1", "--exclude-session", "--db"]
TOKENS = ["search", "hook", "prompt", "session-start", "word", "5", "-5", "x y", "", "-", "--", "-n", "--limit",
          "-C", "--offset", "--budget", "-1", "--sessions", "--json", "--show-secrets", "--exclude-session",
          "--db", "--demo", "--no-live", "--memory-dir", DIR_FLAG, "--text", "-s", "--limit=3", "-h", "five"]


def test_drawn_lines_read_the_same_or_are_left_to_the_full_parser():
    rng = random.Random(18)
    taken = 0
    for _ in range(3000):
        head = rng.choice([["search"], ["hook"], ["--db", "/i", "search"], [DIR_FLAG, "/l", "hook"], []])
        argv = head + [rng.choice(PLAIN if rng.random() < 0.8 else TOKENS) for _ in range(rng.randint(0, 6))]
        got = quick(argv)
        if got is not None:
            taken += 1
            assert got == full_parse(argv), argv
    assert taken > 200  # the check compared many lines the quick reader took

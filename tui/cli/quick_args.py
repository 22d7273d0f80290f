"""The command lines agents run many times a session (``search WORDS``, ``hook EVENT``), read
without building the argparse tree: building it costs ~5 ms (every option makes a help
formatter, which loads ``shutil`` and ``locale``), a fifth of the start-up budget.

Only the plain forms are read here: known options spelled in full, each value in the next word,
words that do not start with ``-``. Anything else (help, an abbreviation, ``--opt=value``, a
number ``int`` refuses, an option this reader does not know, ``--``) gives ``None``, and the
full parser reads the line, so its help, its errors and its odd cases stay exactly as they are.
``tests/cli/test_quick_args.py`` holds this reader to the full parser's Namespace, line by line.
"""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace as Namespace  # what argparse gives, without loading argparse

from indexer.sources import AGENTS

# Global options (``tui.cli.options.add_global_options``): flag -> (dest, kind).
_GLOBAL: dict[str, tuple[str, str]] = {
    "--db": ("db", "value"),
    "--demo": ("demo", "true"),
    "--no-live": ("no_live", "true"),
    "--memory-dir": ("memory_dir", "value"),
    **{agent.dir_option: (f"dirs_{agent.name.replace('-', '_')}", "append") for agent in AGENTS},
}
_GLOBAL_DEFAULTS = {"db": None, "demo": False, "no_live": False,
                    **{dest: None for dest, kind in _GLOBAL.values() if kind == "append"}}

# ``search``'s own options (``tui.cli.index.register``), with the index options it repeats.
_SEARCH: dict[str, tuple[str, str]] = {
    "--db": ("db", "value"),
    **{agent.dir_option: (f"dirs_{agent.name.replace('-', '_')}", "append") for agent in AGENTS},
    "-n": ("limit", "int"),
    "--limit": ("limit", "int"),
    "--offset": ("offset", "int"),
    "--sessions": ("sessions", "true"),
    "-1": ("sessions", "true"),
    "--one-per-session": ("sessions", "true"),
    "--exclude-session": ("exclude_session", "append"),
    "-C": ("context", "int"),
    "--context": ("context", "int"),
    "--budget": ("budget", "int"),
    "--json": ("json", "true"),
    "--show-secrets": ("show_secrets", "true"),
}
_SEARCH_DEFAULTS = {"limit": 20, "offset": 0, "sessions": False, "exclude_session": [], "context": 0,
                    "budget": 0, "json": False, "show_secrets": False}

HOOK_EVENTS = ("session-start", "prompt", "refresh")


def quick_parse(argv: list[str]) -> tuple[str, Namespace] | None:
    """(verb, Namespace) for a plain ``search`` or ``hook`` line, else None. The search
    Namespace has no ``func``: the caller adds it (importing the command's module is its
    business); a hook's has no ``started``."""
    values: dict[str, object] = dict(_GLOBAL_DEFAULTS)
    at = _read_options(argv, 0, _GLOBAL, values, stop_at_word=True)
    if at is None or at >= len(argv) or argv[at] not in ("search", "hook"):
        return None
    verb = argv[at]
    rest = argv[at + 1:]
    values["command"] = verb
    if verb == "hook":
        return _hook(rest, values)
    return _search(rest, values)


def _hook(rest: list[str], values: dict[str, object]) -> tuple[str, Namespace] | None:
    if rest[:1] == ["--text"]:
        rest, text = rest[1:], True
    elif rest[1:] == ["--text"]:
        rest, text = rest[:1], True
    else:
        text = False
    if len(rest) != 1 or rest[0] not in HOOK_EVENTS:
        return None
    return "hook", Namespace(**values, event=rest[0], text=text)


def _search(rest: list[str], values: dict[str, object]) -> tuple[str, Namespace] | None:
    own: dict[str, object] = {}
    words: list[str] = []
    runs = 0  # separate runs of words: the first is argparse's ``query``, later ones its extras
    at = 0
    while at < len(rest):
        if not rest[at].startswith("-"):
            runs += 1
            while at < len(rest) and not rest[at].startswith("-"):
                words.append(rest[at])
                at += 1
            continue
        after = _read_options(rest, at, _SEARCH, own, stop_at_word=True)
        if after is None:
            return None
        at = after
    if not words:
        return None  # the full parser says what is missing
    # argparse fills ``query`` from the first run of words after an option-free start or
    # after the first options, and ``PastedQueryParser`` puts any other words back in the
    # order they were typed (an option's value that equals a word counts as typed there).
    if runs > 1:
        pending = Counter(words)
        typed = []
        for token in rest:
            if pending[token] > 0:
                typed.append(token)
                pending[token] -= 1
        words = typed
    merged = {**values, **_SEARCH_DEFAULTS, "exclude_session": [], **own, "query": words}
    return "search", Namespace(**merged)


def _read_options(argv: list[str], at: int, known: dict[str, tuple[str, str]], values: dict[str, object],
                  *, stop_at_word: bool) -> int | None:
    """Read known options from ``argv[at:]`` into ``values`` up to the first word; the index
    of that word, or None for anything this reader leaves to the full parser."""
    while at < len(argv):
        token = argv[at]
        if not token.startswith("-"):
            return at
        if token not in known:
            return None
        dest, kind = known[token]
        if kind == "true":
            values[dest] = True
            at += 1
            continue
        if at + 1 >= len(argv) or argv[at + 1].startswith("-"):
            return None
        value = argv[at + 1]
        if kind == "int":
            try:
                values[dest] = int(value)
            except ValueError:
                return None
        elif kind == "append":
            previous = values.get(dest)  # None (the default) or the list so far
            values[dest] = [*(previous if isinstance(previous, list) else []), value]
        else:
            values[dest] = value
        at += 2
    return at

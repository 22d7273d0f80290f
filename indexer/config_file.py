"""The config file, read in one place into one typed ``Config``.

Every consumer (log folders, live updates, the archive, resume and fork commands) takes its
setting from ``read_config()``, so a file that is not UTF-8, not TOML, holds a value of the wrong
type or names an unknown agent is one ``ConfigError`` naming the file and the line, the same for
every command (``indexer.config.read_config`` adds the file's path to the line). A file is read
once per process and again only when it changes (its size or
modification time), so a long-running app sees an edit.

Loaded only when a config file exists (``indexer.config.check_config``): a search without one
pays for neither ``tomllib`` nor ``dataclasses``.
"""

from __future__ import annotations

import os
import re
import string
import tomllib
from dataclasses import dataclass, field

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.sources import AGENT_NAMES

SECTIONS = ("roots", "live", "archive", "resume", "meaning")
LAUNCH_PLACEHOLDERS = ("id", "session", "file", "cwd")  # what a [resume.<agent>] command may name


class ConfigProblem(ValueError, ThreadbackError):
    """What is wrong with the file and on which line; ``indexer.config.read_config`` makes it
    the one ``ConfigError`` every command reports (this module never imports ``indexer.config``:
    that one imports this one, only when a file exists)."""
    kind = errors.USAGE

    def __init__(self, reason: str, line: int | None = None):
        super().__init__(reason)
        self.reason, self.line = reason, line


@dataclass(frozen=True)
class Config:
    """What the config file sets; an empty file (or none) gives the defaults."""

    path: str | None = None  # the file read; None when there is none
    roots: dict[str, tuple[str, ...]] = field(default_factory=dict)  # only the agents the file names
    live: bool = True  # [live] enabled
    archive: bool = True  # [archive] enabled
    meaning: bool = True  # [meaning] enabled: search by meaning
    # [resume.<agent>]: the commands the file gives, {"resume": argv, "fork": argv}, either or both
    launch: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)


_cache: dict[str, tuple[tuple[int, int], Config | ConfigProblem]] = {}


def read_config(path: str) -> Config:
    """The config at ``path`` (defaults when there is no file), or ``ConfigProblem``. Cached per
    path until the file changes."""
    try:
        stat = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return Config()
    except OSError as exc:
        raise ConfigProblem(f"cannot read it: {exc.strerror}") from None
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _cache.get(path)
    if cached is None or cached[0] != stamp:
        try:
            outcome: Config | ConfigProblem = _parse(path)
        except ConfigProblem as exc:
            outcome = exc
        _cache[path] = (stamp, outcome)
    result = _cache[path][1]
    if isinstance(result, ConfigProblem):
        raise result
    return result


def _parse(path: str) -> Config:
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise ConfigProblem(f"cannot read it: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigProblem("not UTF-8 text (save it as UTF-8)", raw[:exc.start].count(b"\n") + 1) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None) or _line_in_message(str(exc), text)
        reason = getattr(exc, "msg", None) or re.sub(r"\s*\((at line \d+, column \d+|at end of document)\)$", "",
                                                     str(exc))
        raise ConfigProblem(f"not valid TOML: {reason}", line) from None
    return _Checker(path, text).config(data)


def _line_in_message(message: str, text: str) -> int | None:
    """The line ``tomllib`` names in its message (Python 3.11 and 3.12 keep no ``lineno``)."""
    found = re.search(r"at line (\d+)", message)
    if found:
        return int(found.group(1))
    return len(text.splitlines()) or None if "at end of document" in message else None


class _Checker:
    """Turns the parsed TOML into a ``Config``, or a ``ConfigProblem`` at the offending line."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.lines = _key_lines(text)

    def fail(self, message: str, *where: str) -> ConfigProblem:
        return ConfigProblem(message, self.line_of(".".join(where)))

    def line_of(self, dotted: str) -> int | None:
        while dotted:
            if dotted in self.lines:
                return self.lines[dotted]
            dotted = dotted.rpartition(".")[0]
        return None

    def config(self, data: dict) -> Config:
        for name in data:
            if name not in SECTIONS:
                raise self.fail(f"unknown setting {name!r} (known: {', '.join('[' + s + ']' for s in SECTIONS)})",
                                name)
        return Config(self.path, self.roots(data), self.switch(data, "live"), self.switch(data, "archive"),
                      self.switch(data, "meaning"), self.launch(data))

    def table(self, data: dict, name: str) -> dict:
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise self.fail(f"{name} must be a table ([{name}]), not {_kind(value)}", name)
        return value

    def agent(self, section: str, name: str) -> None:
        if name in AGENT_NAMES:
            return
        from indexer.sources import all_agents  # third-party agents: only for a name not built in

        known = [agent.name for agent in all_agents()]
        if name not in known:
            raise self.fail(f"unknown agent {name!r} in [{section}] (known: {', '.join(known)})", section, name)

    def roots(self, data: dict) -> dict[str, tuple[str, ...]]:
        roots = {}
        for agent, value in self.table(data, "roots").items():
            self.agent("roots", agent)
            values = [value] if isinstance(value, str) else value
            if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
                raise self.fail(f"[roots] {agent} must be a folder or a list of folders (strings), not {_kind(value)}",
                                "roots", agent)
            roots[agent] = tuple(os.path.expanduser(v) for v in values)
        return roots

    def switch(self, data: dict, section: str) -> bool:
        table = self.table(data, section)
        for key in table:
            if key != "enabled":
                raise self.fail(f"[{section}] takes only `enabled` (true or false), not {key!r}", section, key)
        value = table.get("enabled", True)
        if not isinstance(value, bool):
            raise self.fail(f"[{section}] enabled must be true or false, not {value!r}", section, "enabled")
        return value

    def launch(self, data: dict) -> dict[str, dict[str, tuple[str, ...]]]:
        commands = {}
        for agent, table in self.table(data, "resume").items():
            self.agent("resume", agent)
            if not isinstance(table, dict) or set(table) - {"resume", "fork"}:
                raise self.fail(f"[resume.{agent}] takes `resume` and `fork` (argv lists)", "resume", agent)
            commands[agent] = {key: self.argv(value, agent, key) for key, value in table.items()}
            if commands[agent].get("resume") == ():
                raise self.fail(f"[resume.{agent}] resume must not be empty", "resume", agent, "resume")
        return commands

    def argv(self, value: object, agent: str, key: str) -> tuple[str, ...]:
        """A ``[resume.<agent>]`` command as an argv template."""
        where = (f"[resume.{agent}] {key}", ("resume", agent, key))
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"{where[0]} must be a list of strings (an argv), e.g. [\"claude\", \"--resume\", \"{{id}}\"]",
                            *where[1])
        for element in value:
            try:
                fields = [name for _, name, _, _ in string.Formatter().parse(element) if name is not None]
            except ValueError as exc:
                raise self.fail(f"{where[0]}: {element!r}: {exc} (write {{{{ or }}}} for a literal brace)",
                                *where[1]) from None
            unknown = [f for f in fields if f not in LAUNCH_PLACEHOLDERS]
            if unknown:
                raise self.fail(f"{where[0]}: unknown placeholder {{{unknown[0]}}} (known: "
                                + ", ".join("{" + p + "}" for p in LAUNCH_PLACEHOLDERS) + ")", *where[1])
        if value and not value[0].strip():
            raise self.fail(f"{where[0]}: the first element must name the program", *where[1])
        return tuple(value)


def _kind(value: object) -> str:
    return {str: "a string", int: "a number", float: "a number", bool: "true/false", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(r"^\s*((?:\"[^\"]*\"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:\"[^\"]*\"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=")


def _dotted(name: str) -> str:
    """``resume . "claude-code"`` as ``resume.claude-code``."""
    parts = re.findall(r"\"([^\"]*)\"|'([^']*)'|([A-Za-z0-9_-]+)", name)
    return ".".join(next(p for p in part if p) if any(part) else "" for part in parts)


def _key_lines(text: str) -> dict[str, int]:
    """Where each table and key is first written, as dotted names (``resume.codex.fork``): the
    parsed TOML keeps no positions, and a message without its line is hard to act on."""
    lines: dict[str, int] = {}
    table = ""
    for number, line in enumerate(text.splitlines(), 1):
        if header := _HEADER.match(line):
            table = _dotted(header.group(1))
            lines.setdefault(table, number)
        elif key := _KEY.match(line):
            name = _dotted(key.group(1))
            lines.setdefault(f"{table}.{name}" if table else name, number)
    return lines

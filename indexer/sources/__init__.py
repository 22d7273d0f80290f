"""The one agent registry: every agent Threadback reads, with its parser and what the rest of the
code needs to know about it (names, where its logs live, how a session is resumed).

Each parser module offers ``default_roots()``, ``is_log_file(file_name)``,
``init_meta(path, meta)`` and ``parse(path, data, first_line_no, state, meta) -> ParseOutput``;
a module may add ``is_whole_document(path)`` for formats that are rewritten whole rather than
appended to. A new agent is one parser module and one ``Agent`` entry below.
A parse sets ``ParseOutput.restart`` when appended lines change what earlier ones mean; the
file is then read again from the start. Any JSON value may sit in any field: parsers read
fields through ``indexer.sources.fields`` and never raise (see docs/formats.md).
"""

from __future__ import annotations

# ``pathlib`` for type checkers only, ``importlib`` where a parser is loaded: the registry is loaded by
# every command, and ``pathlib`` (~4 ms with ``urllib.parse`` and ``ipaddress``) by the parsers.

from collections.abc import Iterator, Mapping
from types import ModuleType

from indexer.named_record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


class Agent(NamedTuple):
    name: str  # as stored in the index, written in `agent:` filters and config [roots]
    label: str  # for people: "Claude Code"
    parser_module: str  # imported on first use: a search or a hook never parses a log
    dir_option: str  # the command-line flag that replaces its log folders
    log_folder: str  # the folder under the agent's home that holds its session logs
    resume: str  # the shell command resuming a session: {id} is the session id, {path} its log file
    subagent_resumes_parent: bool  # a subagent session is resumed through its parent
    aliases: tuple[str, ...] = ()  # other spellings `agent:` accepts
    # What `R` and `resume --exec` run, as argv (never a shell line): {id}, {file}, {cwd}
    # placeholders; the config file's [resume.<agent>] replaces them (indexer.config).
    resume_argv: tuple[str, ...] = ()
    fork_argv: tuple[str, ...] = ()  # empty: the agent cannot fork a session

    @property
    def parser(self) -> ModuleType:
        import importlib

        return importlib.import_module(self.parser_module)

    def default_roots(self) -> "list[Path]":
        """Its log folders on this machine (its home from the agent's own environment variable)."""
        return self.parser.default_roots()


AGENTS: tuple[Agent, ...] = (
    Agent("claude-code", "Claude Code", "indexer.sources.claude_code", "--claude-dir", "projects",
          "claude --resume {id}", subagent_resumes_parent=True, aliases=("claude", "cc", "claudecode"),
          resume_argv=("claude", "--resume", "{id}"), fork_argv=("claude", "--resume", "{id}", "--fork-session")),
    Agent("codex", "Codex CLI", "indexer.sources.codex", "--codex-dir", "sessions",
          "codex resume {id}", subagent_resumes_parent=True,
          resume_argv=("codex", "resume", "{id}"), fork_argv=("codex", "fork", "{id}")),
    # A Pi session's parent is the session it was branched from; the branch resumes by itself.
    Agent("pi", "Pi", "indexer.sources.pi", "--pi-dir", "sessions", "pi --session {path}", subagent_resumes_parent=False,
          resume_argv=("pi", "--session", "{file}"), fork_argv=("pi", "--fork", "{file}")),
)
AGENT_NAMES: tuple[str, ...] = tuple(a.name for a in AGENTS)
BY_NAME: dict[str, Agent] = {a.name: a for a in AGENTS}


class _Parsers(Mapping[str, ModuleType]):
    """Agent name -> its parser module, imported when first looked up."""

    def __getitem__(self, name: str) -> ModuleType:
        return BY_NAME[name].parser

    def __iter__(self) -> Iterator[str]:
        return iter(AGENT_NAMES)

    def __len__(self) -> int:
        return len(AGENT_NAMES)


PARSERS: Mapping[str, ModuleType] = _Parsers()
CLAUDE_CODE = "claude-code"

_SPELLINGS = {spelling: a.name for a in AGENTS for spelling in (a.name, *a.aliases)}


def agent_named(text: str) -> str:
    """The agent's name for ``text`` as a person writes it (``claude`` -> ``claude-code``);
    an unknown name comes back lowercased, so a filter on it finds nothing rather than failing."""
    return _SPELLINGS.get(text.lower(), text.lower())


def is_whole_document(agent: str, path) -> bool:
    check = getattr(PARSERS[agent], "is_whole_document", None)
    return bool(check and check(path))

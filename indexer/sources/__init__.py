"""The one agent registry: every agent Threadback reads, and all the rest of the code knows about
it: where its logs live, how its files are recognised and parsed, how a session is resumed or
forked, the processes that are the agent (the approval guard refuses under them), its
instruction files and MCP config, and how long it keeps its logs.

Each parser module fulfils ``indexer.sources.interface.AgentParser``: ``default_roots()``,
``is_log_file(file_name)``, ``init_meta(path, meta)`` and
``parse(path, data, first_line_no, state, meta) -> ParseOutput``, plus ``is_whole_document(path)``
for formats that are rewritten whole rather than appended to. A new agent is one parser module
and one ``Agent`` entry below, or, outside this package, an entry point in the
``threadback.agents`` group naming an ``Agent`` (docs/agents.md). A test fails when an entry
leaves a field unset (tests/core/sources/test_agent_registry.py).
A parse sets ``ParseOutput.restart`` when appended lines change what earlier ones mean; the
file is then read again from the start. Any JSON value may sit in any field: parsers read
fields through ``indexer.sources.fields`` and never raise (see docs/formats.md).
"""

from __future__ import annotations

# ``pathlib`` for type checkers only, ``importlib`` where a parser is loaded: the registry is loaded by
# every command, and ``pathlib`` (~4 ms with ``urllib.parse`` and ``ipaddress``) by the parsers.
# Third-party agents load only where logs are found or a name is not a built-in one, never on the
# search path; ``importlib.metadata`` (~150 ms) only when a distribution declares one.

from collections.abc import Iterator, Mapping
from types import ModuleType

from indexer.util.named_record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

ENTRY_POINT_GROUP = "threadback.agents"


class Agent(NamedTuple):
    """Everything Threadback knows about one agent. Every field is set in every entry (a test
    checks): an empty tuple or string is a statement ("it has no fork", "no MCP config")."""

    name: str  # as stored in the index, written in `agent:` filters and config [roots]/[resume.<name>]
    label: str  # for people: "Claude Code"
    parser_module: str  # imported on first use: a search or a hook never parses a log
    dir_option: str  # the command-line flag that replaces its log folders
    log_folder: str  # the folder under the agent's home that holds its session logs
    home: str  # the agent's home folder by default ("~/.claude"); its parser's default_roots() reads it
    home_env: tuple[str, ...]  # environment variables that move that home ("CLAUDE_CONFIG_DIR"); () none
    reading: str  # "lines" (appended, read incrementally) or "whole" (rewritten: read whole each time)
    # What `R` and `resume --exec` run, as argv (never a shell line): {id}, {session} (the id up to
    # its first "/"), {file}, {cwd}
    # placeholders; the config file's [resume.<agent>] replaces them (indexer.config).
    resume_argv: tuple[str, ...]
    fork_argv: tuple[str, ...]  # empty: the agent cannot fork a session
    no_resume: str  # why it cannot be resumed, when resume_argv is empty; "" when it can
    subagent_resumes_parent: bool  # a subagent session is resumed through its parent
    # The approval guard (indexer.rules.review): a process is this agent when its name, executable
    # or script is one of ``programs`` (or starts with one of ``program_prefixes``), or its
    # command line runs one of ``packages``; ``env_markers`` are set in the shells it runs.
    programs: tuple[str, ...]
    program_prefixes: tuple[str, ...]
    packages: tuple[str, ...]
    env_markers: tuple[str, ...]
    instructions: tuple[str, ...]  # the instruction files it reads ("CLAUDE.md", "AGENTS.md")
    hooks: str  # where its hooks are configured, "" when it has none
    mcp_config: str  # where its MCP servers are configured, "" when it has none
    retention: str  # "module:function" giving its log retention (indexer.agents.retention), "" none
    aliases: tuple[str, ...] = ()  # other spellings `agent:` accepts

    @property
    def parser(self) -> ModuleType:
        import importlib

        return importlib.import_module(self.parser_module)

    @property
    def resume(self) -> str:
        """The resume command as a shell template (``{id}``, ``{path}``), "" when it cannot resume."""
        return " ".join(self.resume_argv).replace("{file}", "{path}")

    def default_roots(self) -> "list[Path]":
        """Its log folders on this machine (its home from the agent's own environment variable)."""
        return self.parser.default_roots()


AGENTS: tuple[Agent, ...] = (
    Agent("claude-code", "Claude Code", "indexer.sources.claude_code", "--claude-dir", "projects",
          home="~/.claude", home_env=("CLAUDE_CONFIG_DIR",), reading="lines",
          resume_argv=("claude", "--resume", "{id}"), fork_argv=("claude", "--resume", "{id}", "--fork-session"),
          no_resume="", subagent_resumes_parent=True,
          programs=("claude",), program_prefixes=(), packages=("@anthropic-ai/claude-code",),
          env_markers=("CLAUDECODE",), instructions=("CLAUDE.md", ".claude/CLAUDE.md"),
          hooks="~/.claude/settings.json", mcp_config="~/.claude.json",
          retention="indexer.agents.retention:claude_code_retention", aliases=("claude", "cc", "claudecode")),
    Agent("codex", "Codex CLI", "indexer.sources.codex", "--codex-dir", "sessions",
          home="~/.codex", home_env=("CODEX_HOME",), reading="lines",
          resume_argv=("codex", "resume", "{id}"), fork_argv=("codex", "fork", "{id}"),
          no_resume="", subagent_resumes_parent=True,
          programs=("codex",), program_prefixes=("codex-",),  # codex-x86_64-unknown-linux-musl: npm's native binary
          packages=("@openai/codex",), env_markers=("CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED"),
          instructions=("AGENTS.md",), hooks="~/.codex/hooks.json", mcp_config="~/.codex/config.toml",
          retention=""),
    # A Pi session's parent is the session it was branched from; the branch resumes by itself.
    Agent("pi", "Pi", "indexer.sources.pi", "--pi-dir", "sessions",
          home="~/.pi/agent", home_env=("PI_CODING_AGENT_DIR",), reading="lines",
          resume_argv=("pi", "--session", "{file}"), fork_argv=("pi", "--fork", "{file}"),
          no_resume="", subagent_resumes_parent=False,
          programs=("pi",), program_prefixes=(), packages=("@mariozechner/pi-coding-agent",), env_markers=(),
          instructions=("AGENTS.md",), hooks="", mcp_config="", retention=""),
    # Gemini CLI rewrites its session-*.json whole on every message; its newer JSONL replaces a
    # message by writing it again with the same id: both are read whole.
    Agent("gemini", "Gemini CLI", "indexer.sources.gemini", "--gemini-dir", "tmp",
          home="~/.gemini", home_env=("GEMINI_CLI_HOME",), reading="whole",
          resume_argv=("gemini", "--resume", "{id}"), fork_argv=(), no_resume="", subagent_resumes_parent=False,
          programs=("gemini",), program_prefixes=(), packages=("@google/gemini-cli",), env_markers=("GEMINI_CLI",),
          instructions=("GEMINI.md",), hooks="~/.gemini/settings.json", mcp_config="~/.gemini/settings.json",
          retention="", aliases=("gemini-cli",)),
    # One session is a tree of files: the session's JSON names it, its messages and their parts
    # sit in sibling folders (storage/message/<session>/, storage/part/<message>/).
    Agent("opencode", "opencode", "indexer.sources.opencode", "--opencode-dir", "storage/session",
          home="~/.local/share/opencode", home_env=("XDG_DATA_HOME",), reading="whole",
          resume_argv=("opencode", "--session", "{id}"), fork_argv=(), no_resume="",
          subagent_resumes_parent=True,
          programs=("opencode",), program_prefixes=("opencode-",), packages=("opencode-ai",), env_markers=(),
          instructions=("AGENTS.md",), hooks="", mcp_config="~/.config/opencode/opencode.json", retention=""),
    Agent("copilot", "GitHub Copilot CLI", "indexer.sources.copilot", "--copilot-dir", "session-state",
          home="~/.copilot", home_env=("COPILOT_HOME",), reading="lines",
          resume_argv=("copilot", "--resume", "{id}"), fork_argv=(), no_resume="", subagent_resumes_parent=False,
          programs=("copilot",), program_prefixes=(), packages=("@github/copilot",), env_markers=(),
          instructions=(".github/copilot-instructions.md", "AGENTS.md"), hooks="",
          mcp_config="~/.copilot/mcp-config.json", retention="", aliases=("copilot-cli", "github-copilot")),
    Agent("cursor", "Cursor agent", "indexer.sources.cursor", "--cursor-dir", "projects",
          home="~/.cursor", home_env=(), reading="lines",
          resume_argv=("cursor-agent", "--resume", "{id}"), fork_argv=(), no_resume="",
          subagent_resumes_parent=True,
          programs=("cursor-agent",), program_prefixes=(), packages=(), env_markers=(),
          instructions=("AGENTS.md", ".cursor/rules"), hooks="~/.cursor/hooks.json",
          mcp_config="~/.cursor/mcp.json", retention="", aliases=("cursor-agent",)),
    Agent("qwen", "Qwen Code", "indexer.sources.qwen", "--qwen-dir", "projects",
          home="~/.qwen", home_env=(), reading="lines",
          resume_argv=("qwen", "--resume", "{id}"), fork_argv=(), no_resume="", subagent_resumes_parent=True,
          programs=("qwen",), program_prefixes=(), packages=("@qwen-code/qwen-code",), env_markers=("QWEN_CODE",),
          instructions=("QWEN.md",), hooks="", mcp_config="~/.qwen/settings.json", retention="",
          aliases=("qwen-code",)),
    # A thread is one JSON document, rewritten whole.
    Agent("amp", "Amp", "indexer.sources.amp", "--amp-dir", "threads",
          home="~/.local/share/amp", home_env=("XDG_DATA_HOME",), reading="whole",
          resume_argv=("amp", "threads", "continue", "{id}"), fork_argv=(), no_resume="",
          subagent_resumes_parent=False,
          programs=("amp",), program_prefixes=(), packages=("@sourcegraph/amp",), env_markers=(),
          instructions=("AGENTS.md",), hooks="", mcp_config="~/.config/amp/settings.json", retention=""),
    Agent("kimi", "Kimi CLI", "indexer.sources.kimi", "--kimi-dir", "sessions",
          home="~/.kimi", home_env=(), reading="lines",
          resume_argv=("kimi", "--session", "{session}"), fork_argv=(), no_resume="", subagent_resumes_parent=False,
          programs=("kimi",), program_prefixes=(), packages=("kimi-cli", "kimi_cli"), env_markers=(),
          instructions=("AGENTS.md",), hooks="", mcp_config="~/.kimi/mcp.json", retention="",
          aliases=("kimi-cli",)),
    # A repository's .aider.chat.history.md, appended run after run; aider reloads it in its folder.
    Agent("aider", "Aider", "indexer.sources.aider", "--aider-dir", "",
          home="", home_env=(), reading="whole",
          resume_argv=("aider", "--restore-chat-history"), fork_argv=(), no_resume="",
          subagent_resumes_parent=False,
          programs=("aider",), program_prefixes=(), packages=("aider-chat", "aider.main"), env_markers=(),
          instructions=("CONVENTIONS.md", ".aider.conf.yml"), hooks="", mcp_config="", retention=""),
)
AGENT_NAMES: tuple[str, ...] = tuple(a.name for a in AGENTS)
BY_NAME: dict[str, Agent] = {a.name: a for a in AGENTS}

# The approval guard's lists (indexer.rules.review), from the entries: an agent cannot be
# registered without its processes (an entry without ``programs`` or ``packages`` fails a test).
AGENT_PROGRAMS: dict[str, str] = {program: a.label for a in AGENTS for program in a.programs}
AGENT_PROGRAM_PREFIXES: dict[str, str] = {prefix: a.label for a in AGENTS for prefix in a.program_prefixes}
AGENT_PACKAGES: dict[str, str] = {package: a.label for a in AGENTS for package in a.packages}
AGENT_ENV_MARKERS: tuple[str, ...] = tuple(marker for a in AGENTS for marker in a.env_markers)


class _Parsers(Mapping[str, ModuleType]):
    """Agent name -> its parser module, imported when first looked up."""

    def __getitem__(self, name: str) -> ModuleType:
        return agent_by_name(name).parser

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
    entry = agent_by_name(agent)
    if entry.reading == "whole":
        return True
    check = getattr(entry.parser, "is_whole_document", None)
    return bool(check and check(path))


# --- third-party agents -------------------------------------------------------------------------

_PLUGINS: dict[str, Agent] | None = None
PLUGIN_PROBLEMS: list[str] = []  # an entry point that failed to load or clashed, said once


def plugin_agents() -> dict[str, Agent]:
    """Agents other packages register under the ``threadback.agents`` entry point group, each
    an ``Agent``; loaded once. One that fails to load, is not an ``Agent`` or reuses a name is
    left out and said in ``PLUGIN_PROBLEMS``: a broken plugin never stops indexing."""
    global _PLUGINS
    if _PLUGINS is None:
        found: dict[str, Agent] = {}
        _PLUGINS = found
        if not _declares_agents():
            return found
        from importlib.metadata import entry_points

        for point in entry_points(group=ENTRY_POINT_GROUP):
            try:
                agent = point.load()
            except Exception as exc:  # noqa: BLE001 - a third party's import error is theirs
                PLUGIN_PROBLEMS.append(f"agent plugin {point.name!r} cannot be loaded: {type(exc).__name__}: {exc}")
                continue
            problem = plugin_problem(agent, found)
            if problem:
                PLUGIN_PROBLEMS.append(f"agent plugin {point.name!r}: {problem}")
                continue
            found[agent.name] = agent
    return _PLUGINS


def _declares_agents() -> bool:
    """Whether any installed distribution's ``entry_points.txt`` names the group: a look at the
    files alone (2-17 ms measured with 140 distributions installed), where ``importlib.metadata``
    reads every distribution's metadata (~150 ms) to find none."""
    import os
    import sys

    marker = f"[{ENTRY_POINT_GROUP}]"
    for folder in sys.path:
        try:
            entries = os.scandir(folder or ".")
        except OSError:
            continue
        with entries:
            for entry in entries:
                if not entry.name.endswith((".dist-info", ".egg-info")):
                    continue
                try:
                    with open(os.path.join(entry.path, "entry_points.txt"), encoding="utf-8") as fh:
                        if marker in fh.read():
                            return True
                except OSError:
                    continue
    return False


def plugin_problem(agent: object, found: Mapping[str, Agent]) -> str:
    """Why ``agent`` cannot join the registry, or ""."""
    if not isinstance(agent, Agent):
        return f"is a {type(agent).__name__}, not indexer.sources.Agent"
    if agent.name in BY_NAME or agent.name in found:
        return f"the name {agent.name!r} is taken"
    missing = missing_fields(agent)
    if missing:
        return "leaves unset: " + ", ".join(missing)
    return ""


# Fields that must say something: an agent without them is not usable (or, for the process
# names, not safe: the approval guard would not know it).
REQUIRED = ("name", "label", "parser_module", "dir_option", "reading")


def missing_fields(agent: Agent) -> list[str]:
    """The fields of ``agent`` left unset or inconsistent; [] for a complete entry."""
    missing = [f for f in REQUIRED if not getattr(agent, f)]
    if not agent.programs and not agent.packages:
        missing.append("programs or packages (the approval guard must know its processes)")
    if not agent.resume_argv and not agent.no_resume:
        missing.append("resume_argv or no_resume (how to resume it, or why it cannot be)")
    if agent.reading not in ("lines", "whole"):
        missing.append("reading ('lines' or 'whole')")
    if not agent.dir_option.startswith("--"):
        missing.append("dir_option (a --flag)")
    return missing


def all_agents() -> tuple[Agent, ...]:
    """The built-in agents and the third-party ones."""
    return AGENTS + tuple(plugin_agents().values())


def agent_by_name(name: str) -> Agent:
    """The entry for ``name``, a third-party one included; ``KeyError`` when there is none."""
    agent = BY_NAME.get(name)
    if agent is None:
        agent = plugin_agents().get(name)
    if agent is None:
        raise KeyError(name)
    return agent

"""Where things are: Threadback's own files, each agent's logs, and the memory folder.

- Threadback's files (index, usage log, default memory): ``data_dir()``.
- Agents' logs: the registry's defaults, replaced per agent by the config file
  (``~/.config/threadback/config.toml``, or ``$THREADBACK_CONFIG``), replaced per agent by
  command-line flags::

      [roots]
      claude-code = ["~/.claude/projects", "/mnt/old-laptop/.claude/projects"]
      codex = ["~/.codex/sessions", "~/.codex/archived_sessions"]
      pi = ["~/.pi/agent/sessions"]

- The commands that resume or fork a session (``load_launch_templates``), argv lists with
  ``{id}``, ``{file}`` (the log file) and ``{cwd}`` placeholders, never a shell line::

      [resume.claude-code]
      resume = ["claude", "--resume", "{id}"]
      fork = ["claude", "--resume", "{id}", "--fork-session"]
      [resume.pi]
      resume = ["pi", "--session", "{file}"]
      fork = []        # no fork (an older version without --fork)

- The memory folder, which holds the memory tiers and the rules alike: ``resolve_memory_dir``,
  the one rule the CLI, the app, ``context`` and the hooks all follow.
"""

from __future__ import annotations

# ``pathlib`` is imported by the functions that make a ``Path``: a search and the prompt hook ask
# only for ``data_dir_str`` and ``default_db_str`` (``os.path``), and ``pathlib`` with
# ``urllib.parse`` and ``ipaddress`` costs them ~4 ms. Annotations are strings, so ``Path`` is
# imported at module level for type checkers only.

import os
from collections.abc import Mapping

from indexer.named_record import NamedTuple
from indexer.sources import AGENTS, all_agents

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


class ConfigError(ValueError):
    pass


# --- Threadback's own files ---------------------------------------------------------------------


def data_dir() -> Path:
    """``$THREADBACK_HOME``, else ``$XDG_DATA_HOME/threadback``, else ``~/.local/share/threadback``."""
    from pathlib import Path

    return Path(data_dir_str())


def data_dir_str() -> str:
    """``data_dir()`` as a ``str``."""
    if os.environ.get("THREADBACK_HOME"):
        return os.path.expanduser(os.environ["THREADBACK_HOME"])
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(os.path.expanduser(base), "threadback")


def config_path() -> Path:
    """``$THREADBACK_CONFIG``, else ``$XDG_CONFIG_HOME/threadback/config.toml``."""
    from pathlib import Path

    if os.environ.get("THREADBACK_CONFIG"):
        return Path(os.environ["THREADBACK_CONFIG"]).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "threadback" / "config.toml"


def export_dir() -> Path:
    """Where the app writes a session it exports: ``<data dir>/exports``."""
    return data_dir() / "exports"


def default_db_path() -> Path:
    """``$THREADBACK_DB``, else ``<data dir>/index.sqlite3``."""
    from pathlib import Path

    return Path(default_db_str())


def default_db_str() -> str:
    """``default_db_path()`` as a ``str``."""
    if os.environ.get("THREADBACK_DB"):
        return os.path.expanduser(os.environ["THREADBACK_DB"])
    return os.path.join(data_dir_str(), "index.sqlite3")


# --- agents' logs -------------------------------------------------------------------------------


class SourceRoots(NamedTuple):
    """Folders to scan, per agent."""

    roots: dict[str, tuple[Path, ...]] = {}  # read-only: never mutated

    def items(self):
        return self.roots.items()

    def all_paths(self) -> list[Path]:
        return [p for paths in self.roots.values() for p in paths]


def load_roots(
    overrides: dict[str, list[str]] | None = None,
    config_file: Path | None = None,
) -> SourceRoots:
    """Defaults, replaced per agent by the config file, replaced per agent by ``overrides``."""
    from pathlib import Path

    agents = all_agents()  # third-party agents too (``threadback.agents`` entry points)
    roots: dict[str, tuple[Path, ...]] = {agent.name: tuple(agent.default_roots()) for agent in agents}
    names = [agent.name for agent in agents]
    path = config_file or config_path()
    if path.exists():
        import tomllib  # only when there is a config file: the search path does without it

        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config {path}: {exc}") from exc
        for agent, value in (data.get("roots") or {}).items():
            if agent not in names:
                raise ConfigError(f"{path}: unknown agent {agent!r} in [roots] (known: {', '.join(names)})")
            values = [value] if isinstance(value, str) else list(value)
            roots[agent] = tuple(Path(v).expanduser() for v in values)
    for agent, values in (overrides or {}).items():
        if values:
            roots[agent] = tuple(Path(v).expanduser() for v in values)
    return SourceRoots(roots)


def live_updates_enabled(config_file: Path | None = None) -> bool:
    """Whether the app watches the logs while open; ``[live] enabled = false`` turns it off."""
    path = config_file or config_path()
    if not path.exists():
        return True
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    enabled = (data.get("live") or {}).get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{path}: [live] enabled must be true or false, not {enabled!r}")
    return enabled


def only_roots(mapping: dict[str, list[Path | str]]) -> SourceRoots:
    """Exactly these folders and no defaults (tests, the demo data, ``--only``)."""
    from pathlib import Path

    return SourceRoots({a: tuple(Path(p) for p in ps) for a, ps in mapping.items()})


# --- resume and fork commands ------------------------------------------------------------------

LAUNCH_PLACEHOLDERS = ("id", "file", "cwd")


class LaunchTemplates(NamedTuple):
    """One agent's resume and fork commands as argv templates (``fork`` empty: cannot fork)."""

    resume: tuple[str, ...]
    fork: tuple[str, ...] = ()


def default_launch_templates(agents=AGENTS) -> dict[str, LaunchTemplates]:
    return {agent.name: LaunchTemplates(agent.resume_argv, agent.fork_argv) for agent in agents}


def _argv_template(value: object, where: str) -> tuple[str, ...]:
    """A config value as an argv template, or ``ConfigError`` saying what is wrong with it."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of strings (an argv), e.g. [\"claude\", \"--resume\", \"{{id}}\"]")
    import string  # a config file's [resume] tables only

    for element in value:
        try:
            fields = [name for _, name, _, _ in string.Formatter().parse(element) if name is not None]
        except ValueError as exc:
            raise ConfigError(f"{where}: {element!r}: {exc} (write {{{{ or }}}} for a literal brace)") from None
        unknown = [f for f in fields if f not in LAUNCH_PLACEHOLDERS]
        if unknown:
            raise ConfigError(f"{where}: unknown placeholder {{{unknown[0]}}} (known: "
                              + ", ".join("{" + p + "}" for p in LAUNCH_PLACEHOLDERS) + ")")
    if value and not value[0].strip():
        raise ConfigError(f"{where}: the first element must name the program")
    return tuple(value)


def load_launch_templates(config_file: Path | None = None) -> dict[str, LaunchTemplates]:
    """The registry's commands, replaced per agent and per command by the config file's
    ``[resume.<agent>]`` tables (raises ``ConfigError`` on a bad one)."""
    templates = default_launch_templates()
    path = config_file or config_path()
    if not path.exists():
        return templates
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    section = data.get("resume") or {}
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [resume] must be a table of [resume.<agent>] tables")
    for agent, table in section.items():
        if agent not in templates:
            templates.update(default_launch_templates(all_agents()))  # a third-party agent's table
        if agent not in templates:
            raise ConfigError(f"{path}: unknown agent {agent!r} in [resume] (known: {', '.join(templates)})")
        if not isinstance(table, dict) or set(table) - {"resume", "fork"}:
            raise ConfigError(f"{path}: [resume.{agent}] takes `resume` and `fork` (argv lists)")
        current = templates[agent]
        resume = _argv_template(table["resume"], f"{path}: [resume.{agent}] resume") if "resume" in table else current.resume
        if not resume:
            raise ConfigError(f"{path}: [resume.{agent}] resume must not be empty")
        fork = _argv_template(table["fork"], f"{path}: [resume.{agent}] fork") if "fork" in table else current.fork
        templates[agent] = LaunchTemplates(resume, fork)
    return templates


# --- the memory folder --------------------------------------------------------------------------

MEMORY_ENV_VAR = "THREADBACK_MEMORY_DIR"
# Any of these in ``<cwd>/memory/`` makes it the project's memory folder: the memory tiers and
# their logs (``indexer.memory.store``) and the rules (``indexer.rules.store``) live side by side,
# so the rules, the memory and ``context`` always read one folder.
MEMORY_FOLDER_FILES = (
    "fact.yml",
    "episodic.jsonl",
    "scratchpad.md",
    "associations.jsonl",
    "retrievals.jsonl",
    "rules.jsonl",
    "rules-decisions.jsonl",
)


def global_memory_dir() -> Path:
    """The user's default memory folder, shared by all projects."""
    return data_dir() / "memory"


def project_memory_dir(cwd: Path) -> Path:
    """The project's own memory folder (it may not exist yet)."""
    from pathlib import Path

    return Path(cwd) / "memory"


def holds_memory_files(folder: Path) -> bool:
    return any(os.path.isfile(os.path.join(folder, name)) for name in MEMORY_FOLDER_FILES)


# Where a memory folder came from. Only a project folder (found in the current directory, so
# possibly a cloned repository's) is untrusted until the user allows it (``indexer.memory_trust``);
# a folder the user named and the global one are the user's own.
EXPLICIT, ENVIRONMENT, PROJECT, GLOBAL = "explicit", "environment", "project", "global"


class MemoryFolder(NamedTuple):
    path: Path
    reason: str  # why this folder, for people: "--memory-dir", "$THREADBACK_MEMORY_DIR", ...
    source: str  # EXPLICIT, ENVIRONMENT, PROJECT or GLOBAL

    @property
    def is_project(self) -> bool:
        return self.source == PROJECT


def resolve_memory_folder(
    explicit: str | Path | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> MemoryFolder:
    """Which memory folder to open, why, and where it came from; it need not exist yet.

    Order: an explicit ``--memory-dir``, then ``$THREADBACK_MEMORY_DIR``, then ``<cwd>/memory/``
    when it already holds a memory or rules file, then the global ``data_dir()/memory``.
    """
    from pathlib import Path

    env = os.environ if env is None else env
    if explicit:
        return MemoryFolder(Path(explicit).expanduser(), "--memory-dir", EXPLICIT)
    if env.get(MEMORY_ENV_VAR):
        return MemoryFolder(Path(env[MEMORY_ENV_VAR]).expanduser(), f"${MEMORY_ENV_VAR}", ENVIRONMENT)
    project = project_memory_dir(Path.cwd() if cwd is None else Path(cwd))
    if holds_memory_files(project):
        return MemoryFolder(project, "project memory/ folder in the current directory", PROJECT)
    return MemoryFolder(global_memory_dir(), "global default under the data dir", GLOBAL)


def resolve_memory_dir(
    explicit: str | Path | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[Path, str]:
    """``resolve_memory_folder`` as (path, reason)."""
    folder = resolve_memory_folder(explicit, cwd, env)
    return folder.path, folder.reason


# --- the archive of log files -------------------------------------------------------------------


class ArchiveSetting(NamedTuple):
    """``[archive] enabled = false`` in the config file turns the archive off (it is on by default).
    A value that is not a boolean keeps it on, with ``problem`` saying why: losing logs is
    worse than keeping a copy."""

    enabled: bool = True
    problem: str | None = None


def load_archive_setting(config_file: Path | None = None) -> ArchiveSetting:
    import tomllib

    path = config_file or config_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        return ArchiveSetting(True, f"cannot read config {path}: {exc}; the archive stays on")
    section = data.get("archive") or {}
    value = section.get("enabled", True) if isinstance(section, dict) else True
    if not isinstance(value, bool):
        return ArchiveSetting(True, f"{path}: [archive] enabled must be true or false, not {value!r}; the archive stays on")
    return ArchiveSetting(value)


# --- search by meaning --------------------------------------------------------------------------


def load_meaning_setting(config_file: Path | None = None) -> ArchiveSetting:
    """``[meaning] enabled = false`` turns search by meaning off, and drops its vectors from the
    index (on by default). A value that is not a boolean keeps it on, with ``problem`` saying why."""
    import tomllib

    path = config_file or config_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return ArchiveSetting(True, f"cannot read config {path}: {exc}; search by meaning stays on")
    section = data.get("meaning") or {}
    value = section.get("enabled", True) if isinstance(section, dict) else True
    if not isinstance(value, bool):
        return ArchiveSetting(True, f"{path}: [meaning] enabled must be true or false, not {value!r}; it stays on")
    return ArchiveSetting(value)

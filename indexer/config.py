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
  ``{id}``, ``{session}`` (the id up to its first ``/``), ``{file}`` (the log file) and ``{cwd}``
  placeholders, never a shell line::

      [resume.claude-code]
      resume = ["claude", "--resume", "{id}"]
      fork = ["claude", "--resume", "{id}", "--fork-session"]
      [resume.pi]
      resume = ["pi", "--session", "{file}"]
      fork = []        # no fork (an older version without --fork)

- The memory folder, which holds the memory tiers and the rules alike: ``resolve_memory_dir``,
  the one rule the CLI, the app, ``context`` and the hooks all follow.

The config file is read in one place (``read_config``, ``indexer.config_file``) into one typed
``Config``; each setting below is a view of it, and every failure is one ``ConfigError``.
"""

from __future__ import annotations

# ``pathlib`` is imported by the functions that make a ``Path``: a search and the prompt hook ask
# only for ``data_dir_str`` and ``default_db_str`` (``os.path``), and ``pathlib`` with
# ``urllib.parse`` and ``ipaddress`` costs them ~4 ms. Annotations are strings, so ``Path`` is
# imported at module level for type checkers only.

import os
from collections.abc import Mapping

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.util.named_record import NamedTuple
from indexer.sources import AGENTS, all_agents

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from indexer.config_file import Config


class ConfigError(ValueError, ThreadbackError):
    """The config file cannot be used: one line naming the file and, where known, the line."""
    kind = errors.USAGE

    def __init__(self, message: str, path: object = None, line: int | None = None):
        where = f"{path}:{line}: " if path is not None and line else f"{path}: " if path is not None else ""
        super().__init__(f"config file {where}{message}" if where else message)
        self.path, self.line, self.reason = path, line, message


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

    return Path(config_path_str())


def config_path_str() -> str:
    """``config_path()`` as a ``str``."""
    if os.environ.get("THREADBACK_CONFIG"):
        return os.path.expanduser(os.environ["THREADBACK_CONFIG"])
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(os.path.expanduser(base), "threadback", "config.toml")


def read_config(config_file: Path | str | None = None) -> Config:
    """The config file as one typed ``Config`` (``indexer.config_file``: read once per process,
    again when it changes); raises ``ConfigError`` naming the file and line."""
    from indexer.config_file import ConfigProblem, read_config as read

    path = os.fspath(config_file) if config_file is not None else config_path_str()
    try:
        return read(path)
    except ConfigProblem as exc:
        raise ConfigError(exc.reason, path, exc.line) from None


# A search and each hook check the config file; reading it loads ``tomllib`` and ``dataclasses``
# (~10 ms). The file it last found good is noted beside the index (its path, size and time, and
# the checks' version), so an unchanged file costs a ``stat`` and a read of that note.
CHECKED_NOTE = "config-checked"
CHECKS_VERSION = "1"  # raise when the reader checks something new: every file is read again


def check_config(config_file: Path | str | None = None) -> None:
    """Raise ``ConfigError`` if the config file cannot be used. Commands that do not need a
    setting call it too, so a broken file is reported by all of them alike; without a file, or
    with one unchanged since it was last found good, it costs a ``stat`` and loads nothing."""
    path = os.fspath(config_file) if config_file is not None else config_path_str()
    try:
        stat = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError:
        read_config(path)  # says why it cannot be read
        return
    stamp = f"{CHECKS_VERSION}\0{path}\0{stat.st_size}\0{stat.st_mtime_ns}"
    note = os.path.join(data_dir_str(), CHECKED_NOTE)
    try:
        with open(note, encoding="utf-8", errors="replace") as f:
            if f.read() == stamp:
                return
    except OSError:
        pass
    read_config(path)
    try:
        os.makedirs(os.path.dirname(note), exist_ok=True)
        with open(note, "w", encoding="utf-8") as f:  # a lost or torn note only means a read next time
            f.write(stamp)
    except OSError:
        pass


def export_dir() -> Path:
    """Where the app writes a session it exports: ``<data dir>/exports``."""
    return data_dir() / "exports"


def default_db_str() -> str:
    """``$THREADBACK_DB``, else ``<data dir>/index.sqlite3`` (a ``str``: a search loads no pathlib)."""
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

    roots: dict[str, tuple[Path, ...]] = {agent.name: tuple(agent.default_roots()) for agent in all_agents()}
    for agent, values in read_config(config_file).roots.items():
        roots[agent] = tuple(Path(v) for v in values)
    for agent, given in (overrides or {}).items():
        if given:
            roots[agent] = tuple(Path(v).expanduser() for v in given)
    return SourceRoots(roots)


def live_updates_enabled(config_file: Path | None = None) -> bool:
    """Whether the app watches the logs while open; ``[live] enabled = false`` turns it off."""
    return read_config(config_file).live


def only_roots(mapping: dict[str, list[Path | str]]) -> SourceRoots:
    """Exactly these folders and no defaults (tests, the demo data, ``--only``)."""
    from pathlib import Path

    return SourceRoots({a: tuple(Path(p) for p in ps) for a, ps in mapping.items()})


# --- resume and fork commands ------------------------------------------------------------------


class LaunchTemplates(NamedTuple):
    """One agent's resume and fork commands as argv templates (``fork`` empty: cannot fork)."""

    resume: tuple[str, ...]
    fork: tuple[str, ...] = ()


def default_launch_templates(agents=AGENTS) -> dict[str, LaunchTemplates]:
    return {agent.name: LaunchTemplates(agent.resume_argv, agent.fork_argv) for agent in agents}


def load_launch_templates(config_file: Path | None = None) -> dict[str, LaunchTemplates]:
    """The registry's commands, replaced per agent and per command by the config file's
    ``[resume.<agent>]`` tables (raises ``ConfigError`` on a bad one)."""
    templates = default_launch_templates()
    for agent, given in read_config(config_file).launch.items():
        if agent not in templates:
            templates.update(default_launch_templates(all_agents()))  # a third-party agent's table
        templates[agent] = templates[agent]._replace(**given)
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
# possibly a cloned repository's) is untrusted until the user allows it (``indexer.memory.trust``);
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


def archive_enabled(config_file: Path | None = None) -> bool:
    """``[archive] enabled = false`` in the config file turns the archive off (on by default)."""
    return read_config(config_file).archive


# --- search by meaning --------------------------------------------------------------------------


class MeaningSetting(NamedTuple):
    """``[meaning] enabled = false`` turns search by meaning off and drops its vectors from the
    index (on by default). ``problem`` is kept for the index run's summary; a value that is not a
    boolean is a ``ConfigError`` like any other."""

    enabled: bool = True
    problem: str | None = None


def load_meaning_setting(config_file: Path | None = None) -> MeaningSetting:
    return MeaningSetting(read_config(config_file).meaning)

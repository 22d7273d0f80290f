"""How long each agent keeps its own logs, and whether Threadback's archive holds every log the
agent is about to delete.

Claude Code deletes a transcript ``cleanupPeriodDays`` after its last activity (30 by default,
set in ``~/.claude/settings.json``); the other agents keep theirs until the person deletes them.
An agent names its retention reader in the registry (``Agent.retention``, ``"module:function"``).
``raise_retention`` writes a new period into the settings file the way ``hooks install`` does:
only if nobody changed the file since it was read, atomically, with a ``.bak``.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from indexer.agents.config_files import load_json, save_json
from indexer.agents.settings import SettingsError, user_settings_path
from indexer.ingest.sanitise import storable_path
from indexer.sources import Agent

CLAUDE_DEFAULT_DAYS = 30
CLAUDE_KEY = "cleanupPeriodDays"
DUE_WITHIN_DAYS = 7  # a log this close to its deletion counts as about to go
DAY = 86_400.0


@dataclass(frozen=True)
class Retention:
    """What an agent keeps: ``days`` after last activity, or None for "until you delete it"."""

    days: int | None
    where: str  # where it is set, for people: "cleanupPeriodDays in ~/.claude/settings.json"
    default: bool = False  # not set: the agent's default applies
    problem: str | None = None  # the setting could not be read (the default is assumed)
    settings_path: Path | None = None  # the file ``raise_retention`` writes

    def describe(self) -> str:
        if self.days is None:
            return "keeps its logs until you delete them"
        base = f"deletes logs {self.days} days after their last activity"
        return f"{base} ({'default; ' if self.default else ''}{self.where})"


def claude_code_retention(env: Mapping[str, str] | None = None) -> Retention:
    """``cleanupPeriodDays`` in Claude Code's user settings, else its default of 30."""
    path = user_settings_path(env)
    where = f"{CLAUDE_KEY} in {path}"
    try:
        data = load_json(path).data
    except SettingsError as exc:
        return Retention(CLAUDE_DEFAULT_DAYS, where, default=True, problem=str(exc), settings_path=path)
    value = data.get(CLAUDE_KEY)
    if value is None:
        return Retention(CLAUDE_DEFAULT_DAYS, where, default=True, settings_path=path)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return Retention(CLAUDE_DEFAULT_DAYS, where, default=True, settings_path=path,
                         problem=f"{where} is {value!r}, not a number of days; Claude Code's default assumed")
    return Retention(int(value), where, settings_path=path)


def retention_of(agent: Agent, env: Mapping[str, str] | None = None) -> Retention:
    """The agent's retention from its registry entry's reader; "until deleted" when it has none."""
    if not agent.retention:
        return Retention(None, "")
    import importlib

    module, _, function = agent.retention.partition(":")
    return getattr(importlib.import_module(module), function)(env)


@dataclass(frozen=True)
class LogAtRisk:
    path: str
    mtime: float
    reason: str  # "not indexed", "not in the archive", "grew since it was archived"


@dataclass(frozen=True)
class RetentionCheck:
    agent: Agent
    retention: Retention
    due: int  # logs the agent deletes within DUE_WITHIN_DAYS (or already past their time)
    at_risk: tuple[LogAtRisk, ...]  # of those, the ones the archive does not hold whole
    archive_on: bool

    @property
    def safe(self) -> bool:
        return not self.at_risk and (self.archive_on or self.retention.days is None)

    def warning(self) -> str | None:
        """One line when logs are about to be lost, else None."""
        if self.retention.days is None:
            return None
        if not self.archive_on:
            return (f"{self.agent.label} deletes logs after {self.retention.days} days and the archive is off: "
                    "they will be lost ([archive] enabled = true in the config keeps them)")
        if self.at_risk:
            return (f"{self.agent.label} deletes {len(self.at_risk)} log(s) within {DUE_WITHIN_DAYS} days that the "
                    "archive does not hold: run `threadback index` (or `threadback doctor`)")
        return None


def check_retention(agent: Agent, retention: Retention, logs: Iterable[tuple[str, os.stat_result]],
                    conn: sqlite3.Connection | None, *, archive_on: bool, now: float) -> RetentionCheck:
    """Which of ``logs`` (the agent's files, as ``discover`` finds them) the agent deletes within
    ``DUE_WITHIN_DAYS``, and which of those the archive does not hold up to their current size."""
    if retention.days is None:
        return RetentionCheck(agent, retention, 0, (), archive_on)
    cutoff = now - (retention.days - DUE_WITHIN_DAYS) * DAY
    due = [(path, st) for path, st in logs if st.st_mtime <= cutoff]
    archived = _archived_sizes(conn, [storable_path(path) for path, _ in due]) if conn is not None else {}
    archived = {path: archived[storable_path(path)] for path, _ in due if storable_path(path) in archived}
    at_risk = []
    for path, st in due:
        if path not in archived:
            reason = "not indexed"
        elif (size := archived[path]) is None:
            reason = "not in the archive"
        elif size < st.st_size:
            reason = "grew since it was archived"
        else:
            continue
        at_risk.append(LogAtRisk(path, st.st_mtime, reason))
    return RetentionCheck(agent, retention, len(due), tuple(at_risk), archive_on)


def _archived_sizes(conn: sqlite3.Connection, paths: list[str]) -> dict[str, int | None]:
    """Path -> bytes the archive holds of it (None: indexed, not archived); absent: not indexed."""
    out: dict[str, int | None] = {}
    for i in range(0, len(paths), 500):
        chunk = paths[i : i + 500]
        rows = conn.execute(f"SELECT path, archived, offset FROM files WHERE path IN ({','.join('?' * len(chunk))})",
                            chunk).fetchall()
        out.update((path, offset if archived else None) for path, archived, offset in rows)
    return out


@dataclass(frozen=True)
class RetentionRaised:
    path: Path
    before: int | None  # None: it was not set
    after: int
    backup: Path | None


def raise_retention(retention: Retention, days: int) -> RetentionRaised:
    """Set the agent's retention to ``days`` in its settings file (only ever raised: a lower
    number would delete logs). Locked against concurrent change, atomic, with a ``.bak``."""
    if retention.settings_path is None:
        raise SettingsError("this agent's retention is not set in a file Threadback can write")
    if retention.days is not None and days <= retention.days:
        raise SettingsError(f"{days} days would not raise the retention ({retention.days} days now)")
    document = load_json(retention.settings_path)
    before = document.data.get(CLAUDE_KEY)
    document.data[CLAUDE_KEY] = days
    backup = save_json(document)
    return RetentionRaised(document.path, before if isinstance(before, int) else None, days, backup)


def index_retention_warnings(conn: sqlite3.Connection, roots: Iterable, *, archive_on: bool,
                             now: float) -> list[str]:
    """After an index run: one line per agent (among ``roots``) that deletes logs within
    ``DUE_WITHIN_DAYS`` which the archive does not hold, read from the index's own file rows
    (the run just looked at every file). Nothing for agents that keep their logs."""
    from indexer.sources import agent_by_name

    names = [name for name, _ in roots.items()] if hasattr(roots, "items") else list(roots)
    warnings = []
    for name in names:
        try:
            agent = agent_by_name(name)
        except KeyError:
            continue
        if not agent.retention:
            continue
        retention = retention_of(agent)
        if retention.days is None:
            continue
        cutoff_ns = int((now - (retention.days - DUE_WITHIN_DAYS) * DAY) * 1e9)
        (due, unheld), = conn.execute(
            "SELECT count(*), coalesce(sum(archived = 0 OR offset < size), 0) FROM files "
            "WHERE agent = ? AND missing = 0 AND mtime_ns <= ?", (name, cutoff_ns)).fetchall()
        check = RetentionCheck(agent, retention, due, tuple(LogAtRisk("", 0, "") for _ in range(unheld)), archive_on)
        warning = check.warning() if due else None
        if warning:
            warnings.append(warning)
    return warnings


def retention_checks(db_path: str, roots, *, archive_on: bool, now: float
                     ) -> list[tuple[RetentionCheck, tuple[str, ...], int]]:
    """For ``threadback doctor``: every agent's (retention check, log folders, number of logs),
    its logs found under ``roots`` and compared with the index at ``db_path`` (read-only; an
    index not built yet holds nothing)."""
    from indexer.config import SourceRoots
    from indexer.ingest.discover import discover, resolved_roots
    from indexer.sources import all_agents

    roots = dict(resolved_roots(roots).items())
    from urllib.parse import quote

    conn = sqlite3.connect(f"file:{quote(db_path)}?mode=ro", uri=True) if os.path.exists(db_path) else None
    out = []
    try:
        for agent in all_agents():
            folders = roots.get(agent.name, ())
            logs = [(path, st) for _, path, st in discover(SourceRoots({agent.name: folders}), [])]
            check = check_retention(agent, retention_of(agent), logs, conn, archive_on=archive_on, now=now)
            out.append((check, tuple(str(f) for f in folders), len(logs)))
    finally:
        if conn is not None:
            conn.close()
    return out

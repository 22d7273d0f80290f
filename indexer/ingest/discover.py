"""Finding every agent's log files under the configured folders."""

from __future__ import annotations

import os
from typing import Iterator

from pathlib import Path

from indexer.config import SourceRoots
from indexer.sources import PARSERS


def resolved_roots(roots: SourceRoots) -> SourceRoots:
    """Each root as an absolute path with symlinks resolved, once: the same folder spelled two
    ways (``logs`` and ``/home/me/logs``) is one folder, so its files are indexed once."""
    out: dict[str, tuple[Path, ...]] = {}
    for agent, paths in roots.items():
        unique = dict.fromkeys(Path(os.path.realpath(os.path.expanduser(str(p)))) for p in paths)
        out[agent] = tuple(unique)
    return SourceRoots(out)


def discover(roots: SourceRoots, problems: list[str], seen: set[int] | None = None) -> Iterator[tuple[str, str, os.stat_result]]:
    """Yield (agent, path, stat) for every log file under the roots; errors are collected.
    A file reached twice (nested roots, a symlink to a file) is yielded once. A root that holds
    files but none of its agent's gets a one-line warning (``indexer.ingest.root_check``)."""
    seen = set() if seen is None else seen  # one file however it is reached (``_first_reach``)
    for agent, paths in roots.items():
        parser = PARSERS[agent]
        for root in paths:
            if not root.exists():
                continue
            others: list[str] = []  # names of files that are not this agent's logs, a sample
            found: list[str] = []  # and of those that are, a sample
            for path, st in _walk(str(root), parser, problems, others):
                if len(found) < _SAMPLE:
                    found.append(os.path.basename(path))
                if _first_reach(st, seen):
                    yield agent, path, st
            if others or found:
                from indexer.ingest.root_check import root_warning

                warning = root_warning(agent, root, others, found)
                if warning:
                    problems.append(warning)


_SAMPLE = 200  # file names kept from a root to say what it holds


def _first_reach(st: os.stat_result, seen: set[int]) -> bool:
    """Whether this is the first time the run reaches this file, noting it in ``seen``: its
    device and inode as one number (a set of 100,000 (device, inode) tuples held ~15 MB, of
    these numbers ~6 MB). Some file systems give every file inode 0: such a file always counts."""
    if not st.st_ino:
        return True
    identity = (st.st_dev << 64) | st.st_ino
    if identity in seen:
        return False
    seen.add(identity)
    return True


def _walk(root: str, parser, problems: list[str], others: list[str]) -> Iterator[tuple[str, os.stat_result]]:
    """(path, stat) of the agent's log files under ``root``. A parser may bound the walk: a
    history file kept inside repositories (Aider) is not looked for in their dependencies
    (``SKIP_DIRS``), nor deeper than ``MAX_DEPTH``."""
    is_log_file = parser.is_log_file
    skip_dirs: frozenset[str] = getattr(parser, "SKIP_DIRS", frozenset())
    max_depth: int | None = getattr(parser, "MAX_DEPTH", None)
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            # Read as it goes: a list of a big folder's entries (a project of 50,000 sessions)
            # was tens of MB at once, and what a process once held it keeps.
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in skip_dirs and (max_depth is None or depth < max_depth):
                            stack.append((entry.path, depth + 1))
                        continue
                    if not entry.is_file():
                        continue
                    if not is_log_file(entry.name):
                        if len(others) < _SAMPLE:
                            others.append(os.path.relpath(entry.path, root))
                        continue
                    stat = _stat(entry, problems)
                    if stat is not None:
                        yield entry.path, stat
        except OSError as exc:
            problems.append(f"{folder}: cannot list folder ({exc.strerror or exc})")


def _stat(entry: os.DirEntry, problems: list[str]) -> os.stat_result | None:
    try:
        return entry.stat()
    except OSError as exc:
        problems.append(f"{entry.path}: cannot stat ({exc.strerror or exc})")
        return None


def discover_paths(roots: SourceRoots, paths: list[str], problems: list[str]) -> Iterator[tuple[str, str, os.stat_result]]:
    """Yield (agent, path, stat) for those of ``paths`` that are log files under ``roots``
    (already resolved): a live update reads the files a watcher named, not every folder."""
    seen: set[str] = set()
    for raw in paths:
        path = os.path.realpath(raw)
        if path in seen:
            continue
        seen.add(path)
        for agent, folders in roots.items():
            if not PARSERS[agent].is_log_file(os.path.basename(path)):
                continue
            if not any(path.startswith(str(folder).rstrip(os.sep) + os.sep) for folder in folders):
                continue
            try:
                st = os.stat(path)
            except FileNotFoundError:
                break  # gone again (a temp file renamed away): nothing to read
            except OSError as exc:
                problems.append(f"{path}: cannot stat ({exc.strerror or exc})")
                break
            if os.path.isfile(path):
                yield agent, path, st
            break


def project_log_files(roots: SourceRoots, projects: list[str], problems: list[str],
                      seen: set[int] | None = None) -> Iterator[tuple[str, str, os.stat_result]]:
    """Yield (agent, path, stat) for the log file an agent keeps inside a project folder
    (its parser's ``PROJECT_FILE``: Aider's ``.aider.chat.history.md``), in each folder the
    index already knows sessions in. Only agents ``roots`` names are looked for."""
    for agent, _ in roots.items():
        name = getattr(PARSERS[agent], "PROJECT_FILE", "")
        if not name:
            continue
        for folder in projects:
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            # Once, though also reached under a root or from another folder.
            if os.path.isfile(path) and (seen is None or _first_reach(st, seen)):
                yield agent, os.path.realpath(path), st

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


def discover(roots: SourceRoots, problems: list[str]) -> Iterator[tuple[str, str, os.stat_result]]:
    """Yield (agent, path, stat) for every log file under the roots; errors are collected.
    A file reached twice (nested roots, a symlink to a file) is yielded once."""
    seen: set[tuple[int, int]] = set()  # (device, inode): one file however it is reached
    for agent, paths in roots.items():
        is_log_file = PARSERS[agent].is_log_file
        for root in paths:
            if not root.exists():
                continue
            stack = [str(root)]
            while stack:
                folder = stack.pop()
                try:
                    entries = list(os.scandir(folder))
                except OSError as exc:
                    problems.append(f"{folder}: cannot list folder ({exc.strerror or exc})")
                    continue
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                            continue
                        if not entry.is_file() or not is_log_file(entry.name):
                            continue
                        st = entry.stat()
                    except OSError as exc:
                        problems.append(f"{entry.path}: cannot stat ({exc.strerror or exc})")
                        continue
                    key = (st.st_dev, st.st_ino)
                    if key in seen and st.st_ino:  # some file systems give every file inode 0
                        continue
                    seen.add(key)
                    yield agent, entry.path, st


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

"""Finding every agent's log files under the configured folders."""

from __future__ import annotations

import os
from typing import Iterator

from indexer.config import SourceRoots
from indexer.sources import PARSERS


def discover(roots: SourceRoots, problems: list[str]) -> Iterator[tuple[str, str, os.stat_result]]:
    """Yield (agent, path, stat) for every log file under the roots; errors are collected."""
    seen: set[str] = set()
    for agent, paths in roots.items():
        module = PARSERS[agent]
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
                        if not entry.is_file() or not module.is_log_file(entry.name):
                            continue
                        st = entry.stat()
                    except OSError as exc:
                        problems.append(f"{entry.path}: cannot stat ({exc.strerror or exc})")
                        continue
                    if entry.path in seen:
                        continue
                    seen.add(entry.path)
                    yield agent, entry.path, st

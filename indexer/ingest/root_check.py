"""What a log folder holds when it holds none of its agent's logs: another agent's (a Codex
folder given as ``--claude-dir``), or nothing Threadback reads. One line, named once per run."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from indexer.sources import AGENTS, BY_NAME

# A file name any of several agents could have written says nothing about whose folder it is.
_GENERIC_NAMES = ("x.jsonl", "x.json", "x.md")


def looks_like(names: list[str]) -> dict[str, int]:
    """Agent label -> how many of ``names`` (paths relative to the folder) that agent alone
    would recognise by name; agents matching any ``.jsonl`` or ``.json`` are not counted."""
    counts: dict[str, int] = {}
    for agent in AGENTS:
        parser = agent.parser
        if any(parser.is_log_file(generic) for generic in _GENERIC_NAMES):
            continue
        matched = sum(1 for name in names if parser.is_log_file(os.path.basename(name)))
        if matched:
            counts[agent.label] = matched
    return counts


def root_warning(agent: str, root: Path, names: list[str], found: Sequence[str] = ()) -> str:
    """The warning for ``root``, configured for ``agent``: none of its files (``names``) is the
    agent's log, or every log it found (``found``, an agent that reads any ``.jsonl``) is named
    the way another agent names its own; "" when the folder looks right."""
    entry = BY_NAME.get(agent)
    label = entry.label if entry is not None else agent
    if found:
        taken = looks_like(list(found))
        owner = next((who for who, count in taken.items() if count == len(found) and who != label), None)
        if owner is None:
            return ""
        return (f"{root}: its {len(found)} log(s) are named as {owner} names its own, not as {label}'s: "
                f"is it the right folder for {label}?")
    store_files = getattr(entry.parser, "STORE_FILES", ()) if entry is not None else ()
    names = [n for n in names if os.path.basename(n) not in store_files]  # e.g. opencode.db: read, not a log
    if not names:
        return ""
    others = looks_like(names)
    shown = f"{len(names)}{'+' if len(names) >= 200 else ''}"
    if others:
        guess = ", ".join(f"{who} ({count} file(s))" for who, count in sorted(others.items(), key=lambda x: -x[1]))
        return f"{root}: no {label} logs here; it looks like {guess}: is it the right folder for {label}?"
    if entry is not None and any(os.path.realpath(r) == os.path.realpath(root) for r in entry.default_roots()):
        return ""  # the agent's own folder, holding its other files: not worth a warning each run
    return f"{root}: {shown} file(s) but no {label} logs Threadback recognises"

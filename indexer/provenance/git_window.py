"""What git says of each line: the commit that last changed it, and so the window of time in
which the edit that wrote it must have been made.

``git blame --porcelain`` on the working tree: a committed line was written after its commit's
parent was authored and before the commit was made (committer time: an amend moves it later,
never earlier); a line not committed yet was written after nothing git knows of. Blamed again
with ``-M`` (a line moved within the file stays with the commit that wrote it), each line has a
second window: an edit inside either may have written it (a person who moved a session's lines
did not write them; a session that moved lines did).
Rebases rewrite parents and committer times: a window then may leave out the edit (a miss,
never a wrong attribution).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

GIT_TIMEOUT_S = 20
NOT_COMMITTED = "0" * 40


@dataclass(frozen=True, slots=True)
class LineCommit:
    """The commit that last changed a line (``sha`` all zeros: not committed yet)."""
    sha: str
    author: str
    earliest: float | None  # the edit was made after this (the parent's author time)
    latest: float | None  # and before this (the commit's committer time); None: not committed

    @property
    def committed(self) -> bool:
        return self.sha != NOT_COMMITTED


def git_root(path: str) -> str | None:
    """The work tree holding ``path``, or None when it is not in one (or git is missing)."""
    folder = os.path.dirname(path) or "."
    try:
        done = subprocess.run(["git", "-C", folder, "rev-parse", "--show-toplevel"], capture_output=True,
                              text=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    root = done.stdout.strip()
    return root if done.returncode == 0 and root else None


def line_commits(path: str, root: str, *, moves: bool = False) -> list[LineCommit] | None:
    """One ``LineCommit`` per line of the file as it is now, or None when git cannot blame it
    (not tracked yet, git missing): attribution then goes on without windows. ``moves``: a line
    moved within the file stays with the commit that wrote it (``-M``)."""
    try:
        done = subprocess.run(["git", "-C", root, "blame", "--porcelain", *(["-M"] if moves else []), "--",
                               os.path.relpath(path, root)],
                              capture_output=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    commits, order, parents = _parse_porcelain(done.stdout.decode("utf-8", "replace"))
    parent_times = _author_times(root, sorted({p for p in parents.values() if p}))
    built = {sha: LineCommit(sha, info.get("author", ""),
                             parent_times.get(parents.get(sha) or "") if sha != NOT_COMMITTED else None,
                             _float(info.get("committer-time")) if sha != NOT_COMMITTED else None)
             for sha, info in commits.items()}
    return [built[sha] for sha in order]


def _parse_porcelain(text: str) -> tuple[dict[str, dict[str, str]], list[str], dict[str, str | None]]:
    commits: dict[str, dict[str, str]] = {}
    parents: dict[str, str | None] = {}
    order: list[str] = []
    sha = ""
    for line in text.split("\n"):
        if line.startswith("\t"):
            order.append(sha)
            continue
        head, _, rest = line.partition(" ")
        if len(head) == 40 and all(c in "0123456789abcdef" for c in head):
            sha = head
            commits.setdefault(sha, {})
            parents.setdefault(sha, None)
        elif head == "previous":
            parents[sha] = rest.split(" ", 1)[0]
        elif head in ("author", "committer-time"):
            commits[sha][head] = rest
    return commits, order, parents


def _author_times(root: str, shas: list[str]) -> dict[str, float]:
    if not shas:
        return {}
    try:
        done = subprocess.run(["git", "-C", root, "show", "-s", "--format=%H %at", *shas], capture_output=True,
                              text=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return {}
    times = {}
    for line in done.stdout.splitlines():
        sha, _, when = line.partition(" ")
        if (value := _float(when)) is not None:
            times[sha] = value
    return times


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None

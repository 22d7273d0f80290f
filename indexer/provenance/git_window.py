"""What git says of each line: the commit that last changed it, and so the window of time in
which the edit that wrote it must have been made.

``git blame --porcelain`` on the working tree: a committed line was written after its commit's
parent was authored and before the commit was made (committer time: an amend moves it later,
never earlier); a line not committed yet was written after nothing git knows of. Blamed again
with ``-M`` (a line moved within the file stays with the commit that wrote it), each line has a
second window: an edit inside either may have written it (a person who moved a session's lines
did not write them; a session that moved lines did).
A rebase rewrites parents and committer times (every rebased commit gets the rebase's time, and
the first one a new parent, perhaps a teammate's later commit), and an amend moves the committer
time. A rewritten commit (committer time after author time) is bounded by its branch instead: it
was made before the next commit of the branch was authored, and after its parent was authored only
when that parent was rewritten with it or is the person's own older commit; a parent from someone
else may be the new base of a rebase and bounds nothing.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import Iterator

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
    known = _commit_times(root, sorted({sha for sha in commits if sha != NOT_COMMITTED}
                                       | {p for p in parents.values() if p}))
    rewritten = [sha for sha, t in known.items() if t.rewritten and sha in commits]
    later = _next_authored(root, known) if rewritten else {}
    originals = _originals(root, {sha: known[sha] for sha in rewritten}) if rewritten else {}
    built = {}
    for sha, info in commits.items():
        if sha in originals:
            original, parent = originals[sha]
            built[sha] = LineCommit(sha, info.get("author", ""), parent, original)
        else:
            built[sha] = _window(sha, info.get("author", ""), known.get(sha), known.get(parents.get(sha) or ""), later.get(sha))
    return [built[sha] for sha in order]


REFLOG_ENTRIES = 5000  # how far back HEAD's reflog is read for the commits a rebase replaced


def _originals(root: str, rewritten: dict[str, CommitTimes]) -> dict[str, tuple[float, float | None]]:
    """For each rebased commit whose earlier version HEAD's reflog still holds (a local rebase keeps
    it for months): (when that version was committed, its parent's author time). The version is the
    same author's commit with the same author time on another parent (an amend keeps the parent and
    makes the commit anew: its own times hold), committed last before this one."""
    wanted = {(t.author, t.authored): sha for sha, t in rewritten.items()}
    found: dict[str, tuple[float, str]] = {}
    for version, times in _times_of(root, "log", "-g", f"-n{REFLOG_ENTRIES}", "HEAD"):
        sha = wanted.get((times.author, times.authored))
        if sha is None or version == sha or times.committed >= rewritten[sha].committed or times.parent == rewritten[sha].parent:
            continue
        if sha not in found or times.committed > found[sha][0]:
            found[sha] = (times.committed, times.parent)
    parents = _commit_times(root, sorted({parent for _, parent in found.values() if parent}))
    return {sha: (committed, parents[parent].authored if parent in parents else None)
            for sha, (committed, parent) in found.items()}


REWRITE_SPAN_S = 600  # the commits of one rebase are rewritten within this of each other


@dataclass(frozen=True, slots=True)
class CommitTimes:
    author: str
    authored: float
    committed: float
    parent: str  # the first parent ("" for a root commit)

    @property
    def rewritten(self) -> bool:
        """Amended or rebased: committed after it was authored."""
        return self.committed > self.authored


def _window(sha: str, author: str, times: CommitTimes | None, parent: CommitTimes | None,
            next_authored: float | None) -> LineCommit:
    if sha == NOT_COMMITTED:
        return LineCommit(sha, author, None, None)
    if times is None or not times.rewritten:
        return LineCommit(sha, author, parent.authored if parent else None, times.committed if times else None)
    latest = times.committed
    if next_authored is not None and times.authored <= next_authored < latest:
        latest = next_authored  # rebased: the branch's next commit was authored after this one was made
    if parent is None:
        return LineCommit(sha, author, None, latest)
    same_rewrite = parent.rewritten and abs(parent.committed - times.committed) <= REWRITE_SPAN_S
    own_older = parent.author == times.author and parent.committed <= times.authored
    return LineCommit(sha, author, parent.authored if same_rewrite or own_older else None, latest)


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


def _commit_times(root: str, shas: list[str]) -> dict[str, CommitTimes]:
    return dict(_times_of(root, "show", "-s", *shas)) if shas else {}


def _times_of(root: str, *command: str) -> Iterator[tuple[str, CommitTimes]]:
    """(sha, times) of each commit a ``git log``-like command lists; none if git cannot run."""
    try:
        done = subprocess.run(["git", "-C", root, *command[:1], "--format=%H%x00%an%x00%at%x00%ct%x00%P", *command[1:]],
                              capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return
    for line in done.stdout.splitlines():
        fields = line.split("\0")
        if len(fields) == 5 and (authored := _float(fields[2])) is not None and (committed := _float(fields[3])) is not None:
            yield fields[0], CommitTimes(fields[1], authored, committed, fields[4].split(" ")[0])


NEXT_SEARCH_COMMITS = 5000  # how far back HEAD's branch is read for the commit after a rewritten one


def _next_authored(root: str, known: dict[str, CommitTimes]) -> dict[str, float]:
    """For each rewritten commit on HEAD's first-parent line (within NEXT_SEARCH_COMMITS), the
    author time of the commit after it on that line."""
    after: dict[str, float] = {}
    newer: float | None = None
    for sha, times in _times_of(root, "log", "--first-parent", f"-n{NEXT_SEARCH_COMMITS}", "HEAD"):  # newest first
        if newer is not None and sha in known and known[sha].rewritten:
            after[sha] = newer
        newer = times.authored
    return after


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None

"""``blame``: which session's edit last wrote each line of a file, as the file is now.

The sessions come from the ``files_touched`` table (those that edited, wrote or named the file
in a shell command); their tool calls are read back with their arguments (kept in the log where
the index stores a reference), each call's changes to the file taken out
(``indexer.provenance.edits``), replayed in time order to learn what each wrote
(``replay``), and matched against the file's lines newest first (``matching``), inside the
windows git's own blame allows where the file is in a work tree (``git_window``).

"Last wrote" is meant as git means it: the edit that last *changed* the line. A session that
rewrote a file keeping a line as it was did not write that line.
"""

from __future__ import annotations

import json
import re
import os
from collections import Counter
from dataclasses import dataclass

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.index import Index
from indexer.models import Message, Session
from indexer.provenance.edits import Change, Hunk, boilerplate, changes_in_call, distinctive, lines_of, read_of, seen_in_output
from indexer.provenance.git_window import LineCommit, git_root, line_commits
from indexer.provenance.matching import claim_lines
from indexer.provenance.replay import Written, replay

WRITING_KINDS = {"edit", "write", "delete", "shell"}
# A call's time is when the agent asked; the file changes after (at once, or once a person
# approves): an edit cannot come after the commit holding its line, but its call may come a
# little before the parent commit.
AFTER_COMMIT_SLACK_S = 2.0
BEFORE_PARENT_SLACK_S = 60.0
MAX_FILE_BYTES = 4_000_000


class BlameError(ValueError, ThreadbackError):
    """A file blame cannot read (missing, a folder, binary, too big), with a message for people."""
    kind = errors.NOT_FOUND


@dataclass(frozen=True, slots=True)
class BlameLine:
    number: int  # 1-based
    text: str
    session: Session | None  # None: no session's edit wrote this line
    message: Message | None  # the tool call that wrote it
    commit: LineCommit | None = None  # git's view of the line, where git is there
    # False: a whole-file write over text no log showed whole took this line, and no git window
    # narrowed it: the write wrote it or kept it as a person left it.
    certain: bool = True


@dataclass(frozen=True, slots=True)
class Blame:
    path: str
    lines: list[BlameLine]
    git: bool  # git's blame narrowed the candidates
    sessions_considered: int

    def sessions(self) -> list[Session]:
        """The sessions that wrote lines of the file, in order of their first line."""
        seen: dict[int, Session] = {}
        for line in self.lines:
            if line.session is not None and line.session.id not in seen:
                seen[line.session.id] = line.session
        return list(seen.values())


def read_current(path: str) -> list[str]:
    """The file's lines now, as blame compares them; raises ``BlameError`` with the reason."""
    try:
        if os.path.isdir(path):
            raise BlameError(f"{path} is a folder, not a file")
        if os.path.getsize(path) > MAX_FILE_BYTES:
            raise BlameError(f"{path} is over {MAX_FILE_BYTES // 1_000_000} MB: too big to attribute line by line")
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise BlameError(f"{path} does not exist (blame reads the file as it is now)") from None
    except OSError as exc:
        raise BlameError(f"cannot read {path}: {exc.strerror or exc}") from None
    if b"\x00" in data[:8192]:
        raise BlameError(f"{path} looks binary: blame attributes text lines")
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    return list(lines_of(text.removesuffix("\n")))


def blame_file(index: Index, path: str, *, use_git: bool = True) -> Blame:
    """Attribute every line of ``path`` (absolute) to the session edit that last wrote it."""
    path = os.path.abspath(path)
    current = read_current(path)
    real = os.path.realpath(path)
    candidates = _writing_sessions(index, [path] if real == path else [path, real])
    changes = _changes(index, candidates, {path, real})
    written = replay(changes)
    commits = moved = None
    root = git_root(path) if use_git else None
    if root is not None:
        commits, moved = line_commits(path, root), line_commits(path, root, moves=True)
        if commits is None or moved is None or not len(commits) == len(moved) == len(current):
            commits = moved = None  # the file changed between the reads
    claimed = claim_lines(current, written, _allowed(commits, moved))
    repeated = {text for text, count in Counter(current).items() if count > 1}
    lines = [BlameLine(n + 1, text, edit.session if edit else None, edit.message if edit else None,
                       commits[n] if commits else None, _certain(text, edit, commits is not None, text in repeated))
             for n, (text, edit) in enumerate(zip(current, claimed))]
    return Blame(path, lines, commits is not None, len(candidates))


def _certain(text: str, edit: Written | None, git: bool, repeated: bool) -> bool:
    """Whether a line's writer is known for certain. A line that says nothing on its own (blank,
    ``}``, ``return result``) or stands more than once in the file may be a person's beside the
    edit's lines, git or not; without git's windows, a whole-file write over text no log showed
    may only have kept the line. Those are shown as "written or kept by"."""
    if edit is None:
        return True
    if repeated or not distinctive(text) or boilerplate(text):
        return False
    return git or not edit.blind


def _writing_sessions(index: Index, paths: list[str]) -> dict[int, tuple[Session, str]]:
    """Sessions that changed the file (or named it in a shell command), with the path as they
    wrote it."""
    found: dict[int, tuple[Session, str]] = {}
    for path in paths:
        for touch in index.files_touched(path):
            if WRITING_KINDS.intersection(touch.kinds) and touch.path in paths:
                found.setdefault(touch.session.id, (touch.session, touch.path))
    return found


# A change with what orders it: the call's time, its session, the message's place in the session.
_OrderedChange = tuple[float, int, int, Session, Message, Change]


def _changes(index: Index, sessions: dict[int, tuple[Session, str]], paths: set[str]
             ) -> list[tuple[Session, Message, Change]]:
    """Every change to the file in those sessions, in the order made (by time, then message)."""
    out: list[_OrderedChange] = []
    for session, _ in sessions.values():
        out.extend(_session_changes(index, session, paths))
    out.sort(key=lambda row: row[:3])
    return [(s, m, c) for *_, s, m, c in out]


def _session_changes(index: Index, session: Session, paths: set[str]) -> list[_OrderedChange]:
    """One session's changes to the file, as its calls' answers come: an edit counts once its
    answer does not refuse it, a whole read once its answer shows the text."""
    cwd = session.project_path
    out: list[_OrderedChange] = []
    reading: Message | None = None  # a whole read of the file, waiting for its output
    waiting: list[tuple[Message, list[Change]]] = []  # edits whose answer has not come yet
    for _, message in index.iter_events(kinds=("tool_call", "tool_result"), session_rowid=session.id):
        if message.kind == "tool_result":
            out.extend(_read_seen(session, reading, message))
            reading = None
            out.extend(_answered_edit(session, waiting, message))
            continue
        reads, edits = _call_effects(message, paths, cwd)
        if reads:
            reading = message
        waiting.extend((message, changes) for changes in edits)
    for call, changes in waiting:  # no answer in the log: the edit is taken as made
        out.extend(_ordered(session, call, changes))
    return out


def _call_effects(call: Message, paths: set[str], cwd: str | None) -> tuple[bool, list[list[Change]]]:
    """Whether a call reads the whole file, and its changes to it under each path it may go by."""
    if not call.detail:
        return False, []
    try:
        args = json.loads(call.detail)
    except (ValueError, RecursionError):
        return False, []
    reads = False
    edits: list[list[Change]] = []
    for path in paths:
        if read_of(call.tool_name, args, path, cwd):
            reads = True
        if changes := changes_in_call(call.tool_name, args, path, cwd):
            edits.append(changes)
    return reads, edits


def _read_seen(session: Session, reading: Message | None, answer: Message) -> list[_OrderedChange]:
    """The file's text as a whole read saw it, from the read's answer (none from another tool's)."""
    if reading is None or answer.tool_name not in (None, reading.tool_name):
        return []
    seen = seen_in_output(answer.text)
    return [] if seen is None else _ordered(session, reading, [seen])


def _answered_edit(session: Session, waiting: list[tuple[Message, list[Change]]], answer: Message
                   ) -> list[_OrderedChange]:
    """Takes the edit an answer is for off ``waiting`` (the first by its tool, or the first at all
    when the answer names none): its changes, unless the answer says it was refused."""
    for i, (call, changes) in enumerate(waiting):
        if answer.tool_name in (None, call.tool_name):
            del waiting[i]
            return [] if refused(answer.text, changes) else _ordered(session, call, changes)
    return []


def _ordered(session: Session, message: Message, changes: list[Change]) -> list[_OrderedChange]:
    """A call's changes with what sorts them; a call without a time goes at its session's start."""
    ts = message.ts or session.start_ts or 0.0
    return [(ts, session.id, message.ordinal, session, message, change) for change in changes]


_REFUSALS = ("apply_patch verification failed", "Failed to find expected lines", "patch rejected",
             "<tool_use_error>", "String to replace not found", "has not been read yet")
_NONZERO_EXIT = re.compile(r"^(?:Exit code|Process exited with code):? [1-9]")


def refused(answer: str | None, changes: list[Change]) -> bool:
    """Whether a tool's answer says its edit was not made: an error the parser marked
    (``[error]``), a patch that did not apply, an editor that found no such text. A shell command
    that failed may still have written its file; a patch that failed wrote nothing."""
    head = (answer or "")[:400]
    if head.startswith("[error]") or any(marker in head for marker in _REFUSALS):
        return True
    return bool(_NONZERO_EXIT.match(head)) and all(isinstance(change, Hunk) for change in changes)


def _allowed(commits: list[LineCommit] | None, moved: list[LineCommit] | None):
    """Whether an edit could have written line ``j``: made inside its commit's window, as git
    blames it with or without following moves."""

    def allowed(edit: Written, j: int) -> bool:
        if commits is None or moved is None or edit.message.ts is None:
            return True
        return _inside(edit.message.ts, commits[j]) or _inside(edit.message.ts, moved[j])

    return allowed


def _inside(ts: float, commit: LineCommit) -> bool:
    if commit.earliest is not None and ts < commit.earliest - BEFORE_PARENT_SLACK_S:
        return False
    return commit.latest is None or ts <= commit.latest + AFTER_COMMIT_SLACK_S

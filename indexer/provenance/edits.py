"""What one tool call wrote into one file: the blocks of lines an edit left behind.

Agent-agnostic like ``indexer.sources.touched_files``: Claude ``Edit``/``MultiEdit``/``Write``, Pi
``edit``/``write`` (``oldText``/``newText``), the text editor tool (``old_str``/``new_str``/
``file_text``), Codex ``apply_patch`` hunks (as a tool or inside a shell command), and simple
shell writes (``cat > FILE <<EOF``, ``echo TEXT > FILE``, ``sed -i`` with one plain ``s///`` or
``Nd``). Anything else that changed the file (a regular expression, a script) is a ``Blind``
change: its lines are unknown, so the replay forgets what it knew of the file.

A block holds the lines as written and which of them are *new*: a line an edit carried over
unchanged (context in ``old_string`` kept in ``new_string``, a patch's context line) anchors the
block but was not written by it.
"""

from __future__ import annotations

import difflib
import re
import shlex
from dataclasses import dataclass
from typing import Any

from indexer.sources.touched_files import _command_text, _patch_text, normalised

_REPLACE_KEYS = (("old_string", "new_string"), ("oldText", "newText"), ("old_str", "new_str"))
_CONTENT_KEYS = ("content", "file_text", "text")
_PATH_KEYS = ("file_path", "path", "notebook_path", "filename", "file")
_HEREDOC_WRITE = re.compile(
    r"""^\s*(?:cat|tee)\b[^\n<>|;&]*?(>>?)\s*(['"]?)([^\s'"<>|;&]+)\2\s*<<-?\s*(['"]?)(\w+)\4[^\n]*\n(.*?)\n\5\s*$""",
    re.DOTALL | re.MULTILINE)
_HEREDOC_TEE = re.compile(
    r"""^\s*(?:cat\s*)?<<-?\s*(['"]?)(\w+)\1\s*(?:\|\s*tee\s+(-a\s+)?|>(>?)\s*)(['"]?)([^\s'"<>|;&]+)\5[^\n]*\n(.*?)\n\2\s*$""",
    re.DOTALL | re.MULTILINE)
_ECHO_WRITE = re.compile(r"""^\s*(?:echo|printf)\s+(.+?)\s*(>>?)\s*(\S+)\s*$""")


@dataclass(frozen=True, slots=True)
class Replace:
    """``old`` replaced by ``new`` (every occurrence when ``every``)."""
    old: tuple[str, ...]
    new: tuple[str, ...]
    every: bool = False


@dataclass(frozen=True, slots=True)
class Whole:
    """The file's whole text set (``append``: added at its end)."""
    lines: tuple[str, ...]
    append: bool = False


@dataclass(frozen=True, slots=True)
class Hunk:
    """One ``apply_patch`` hunk: the lines before and after, context included."""
    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Blind:
    """A change whose lines cannot be read (``sed -i``, a delete, a move)."""
    deleted: bool = False


@dataclass(frozen=True, slots=True)
class Sed:
    """``sed -i`` with one simple command: ``s/old/new/`` (``every``: with ``g``) where both
    sides are plain text, or ``Nd`` / ``N,Md`` (lines counted from 1)."""
    old: str = ""
    new: str = ""
    every: bool = False
    delete: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Seen:
    """The file's whole text as a read showed it (Claude's ``Read`` output): not a change, but
    what the file held then, so a ``Write`` after it wrote only what differs."""
    lines: tuple[str, ...]


Change = Replace | Whole | Hunk | Blind | Seen | Sed

_READ_TOOLS = ("read", "read_file", "view")
_NUMBERED = re.compile(r"^ *(\d+)(?:→|\t)(.*)$")


def read_of(tool_name: str | None, args: Any, path: str, cwd: str | None) -> bool:
    """Whether this call read the whole of ``path`` (no offset or limit)."""
    if (tool_name or "").strip().lower() not in _READ_TOOLS or not isinstance(args, dict):
        return False
    if args.get("offset") not in (None, 0, 1) or args.get("limit") is not None:
        return False
    return _named_path(args, cwd) == path


def seen_in_output(text: str | None) -> Seen | None:
    """The file's lines from a read's output (``     1→text``, numbered from 1 without a gap,
    as Claude Code's ``Read`` prints them); None when the output is cut, an error, or another
    shape. Lines after the numbered ones (a reminder the agent appends) are not the file's."""
    if not text or "characters omitted]" in text:
        return None
    lines: list[str] = []
    for raw in text.split("\n"):
        m = _NUMBERED.match(raw)
        if m is None:
            break
        if int(m.group(1)) != len(lines) + 1:
            return None
        lines.append(m.group(2).rstrip())
    return Seen(tuple(lines)) if lines else None


DISTINCT_CHARS = 4  # a line with fewer letters and digits than this anchors nothing


def distinctive(line: str) -> bool:
    """A line that says something on its own (not blank, ``}``, ``else:``)."""
    return sum(1 for c in line if c.isalnum()) >= DISTINCT_CHARS


# Words that make up lines found in any code (``return result``, ``continue``, ``} else {``): a
# line of these alone and punctuation may be anyone's, wherever it stands.
_BOILERPLATE_WORDS = frozenset("""
return returns result results res ret none null nil undefined true false else elif elsif endif fi done
end continue break pass try except finally catch raise throw throws self this super default do then
begin yield await async new void ok err error data value values args kwargs
""".split())
_WORD = re.compile(r"[A-Za-z_]\w*|\d+")


def boilerplate(line: str) -> bool:
    """A line of keywords and the commonest names only (``return None``, ``else:``): its text
    cannot tell who wrote it."""
    return all(word.lower() in _BOILERPLATE_WORDS for word in _WORD.findall(line))


def lines_of(text: str) -> tuple[str, ...]:
    """Lines as blame compares them: line ends and trailing spaces dropped."""
    return tuple(line.rstrip() for line in text.split("\n")) if text else ()


def new_indices(old: tuple[str, ...], new: tuple[str, ...]) -> frozenset[int]:
    """The positions in ``new`` that ``old`` does not carry over (what an edit wrote)."""
    if not old:
        return frozenset(range(len(new)))
    kept: set[int] = set()
    for block in difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks():
        kept.update(range(block.b, block.b + block.size))
    return frozenset(i for i in range(len(new)) if i not in kept)


def changes_in_call(tool_name: str | None, args: Any, path: str, cwd: str | None) -> list[Change]:
    """The changes one tool call made to ``path`` (absolute, normalised), in the order made."""
    name = (tool_name or "").strip().lower()
    if isinstance(args, dict):
        folder = args.get("workdir") or args.get("cwd")
        if isinstance(folder, str) and folder.strip():
            cwd = normalised(folder, cwd) or cwd
    if name == "apply_patch":
        return _patch_changes(_patch_text(args), path, cwd)
    if isinstance(args, dict) and _named_path(args, cwd) == path:
        return _editor_changes(name, args)
    if name in ("bash", "shell", "exec_command", "local_shell", "local_shell_call", "shell_command"):
        command = _command_text(args)
        if "*** Begin Patch" in command:
            return _patch_changes(command, path, cwd)
        return _shell_changes(command, path, cwd)
    return []


def _named_path(args: dict, cwd: str | None) -> str | None:
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return normalised(value, cwd)
    return None


def _editor_changes(name: str, args: dict) -> list[Change]:
    edits = args.get("edits")
    if isinstance(edits, list):  # MultiEdit: applied in order
        out: list[Change] = []
        for edit in edits:
            out += _editor_changes(name, edit) if isinstance(edit, dict) else []
        return out
    for old_key, new_key in _REPLACE_KEYS:
        old, new = args.get(old_key), args.get(new_key)
        if isinstance(old, str) and isinstance(new, str):
            if not old and "write" not in name:
                return [Whole(lines_of(new))] if "create" in name else [Blind()]
            return [Replace(lines_of(old), lines_of(new), bool(args.get("replace_all")))]
    for key in _CONTENT_KEYS:
        content = args.get(key)
        if isinstance(content, str) and ("write" in name or "create" in name or args.get("command") == "create"):
            return [Whole(lines_of(content.removesuffix("\n")))]
    return [Blind()] if name in ("notebookedit", "edit", "multiedit", "edit_file") else []


def _patch_changes(patch: str, path: str, cwd: str | None) -> list[Change]:
    """The hunks of ``patch`` for ``path``: ``*** Add File`` is a whole file, ``*** Update File``
    hunks are replacements, ``*** Delete File`` and a move are blind."""
    out: list[Change] = []
    action, current = "", None
    lines = [raw.rstrip("\r") for raw in patch.split("\n")]
    for header, *body in _split_before(lines, "*** ")[1:]:  # lines before the first header name no file
        named = _file_header(header, cwd)
        action, current = named or (action, current)  # ``*** Move to:``, ``*** End of File`` keep both
        if current != path:
            continue
        if header.startswith("*** Move to:") or (named is not None and action == "Delete"):
            out.append(Blind(deleted=True))
        out += [Whole(new) if action == "Add" else Hunk(old, new) for old, new in _hunks(body)]
    return out


_FILE_HEADER = re.compile(r"^\*\*\* (Update|Add|Delete) File: (.+?)\s*$")


def _file_header(line: str, cwd: str | None) -> tuple[str, str | None] | None:
    """(action, normalised path) of an ``*** Update|Add|Delete File:`` line; None for any other."""
    header = _FILE_HEADER.match(line)
    return (header.group(1), normalised(header.group(2), cwd)) if header else None


def _split_before(lines: list[str], prefix: str) -> list[list[str]]:
    """``lines`` cut before each line that starts with ``prefix``; the first run (possibly
    empty) is what came before the first such line."""
    runs: list[list[str]] = [[]]
    for line in lines:
        if line.startswith(prefix):
            runs.append([])
        runs[-1].append(line)
    return runs


def _hunks(body: list[str]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(old, new) lines of each ``@@`` hunk in one file's part of a patch, empty ones dropped."""
    sides = [(_hunk_side(run, "-"), _hunk_side(run, "+")) for run in _split_before(body, "@@")]
    return [(old, new) for old, new in sides if old or new]


def _hunk_side(run: list[str], mark: str) -> tuple[str, ...]:
    """The lines marked ``mark`` and the context lines (a leading space, or empty), marks
    dropped: a context line is on both sides."""
    return tuple(line[1:].rstrip() for line in run if line.startswith((mark, " ")) or line == "")


_COMMAND_SEPARATOR = re.compile(r"\s*(?:&&|;|\|\|)\s*")


def _shell_changes(command: str, path: str, cwd: str | None) -> list[Change]:
    """Here-documents and ``echo``/``printf`` redirected into ``path``; any other shell
    change to it (``sed -i``, ``rm``, ``mv``) is blind."""
    first_line = command.split("\n", 1)[0] if "<<" in command else command
    # the first reading that finds a change to ``path`` is the answer
    return (_heredoc_writes(command, path, cwd) or _echo_writes(first_line, path, cwd)
            or _sed_edits(first_line, path, cwd) or _blind_shell_change(command, path, cwd))


def _heredoc_writes(command: str, path: str, cwd: str | None) -> list[Change]:
    """``cat > FILE <<EOF``, ``cat <<EOF | tee FILE`` and their appending forms into ``path``."""
    out: list[Change] = []
    for m in _HEREDOC_WRITE.finditer(command):
        if normalised(m.group(3), cwd) == path:
            out.append(Whole(lines_of(m.group(6)), append=m.group(1) == ">>"))
    for m in _HEREDOC_TEE.finditer(command):
        if normalised(m.group(6), cwd) == path:
            out.append(Whole(lines_of(m.group(7)), append=bool(m.group(3) or m.group(4))))
    return out


def _echo_writes(first_line: str, path: str, cwd: str | None) -> list[Change]:
    """``echo``/``printf`` redirected into ``path`` by any of the commands on the first line."""
    out: list[Change] = []
    for part in _COMMAND_SEPARATOR.split(first_line):
        echo = _ECHO_WRITE.match(part)
        if echo and normalised(echo.group(3), cwd) == path:
            out.append(Whole(_echoed(echo.group(1)), append=echo.group(2) == ">>"))
    return out


def _sed_edits(first_line: str, path: str, cwd: str | None) -> list[Change]:
    """The simple ``sed -i`` edits of ``path`` among the commands on the first line."""
    if "sed" not in first_line:
        return []
    edits = (sed_in_place(part, path, cwd) for part in _COMMAND_SEPARATOR.split(first_line))
    return [sed for sed in edits if sed is not None]


def _blind_shell_change(command: str, path: str, cwd: str | None) -> list[Change]:
    """Any other write, delete or move of ``path`` the command makes: its lines are unknown."""
    from indexer.sources.touched_files import DELETE, READ, _shell_touches

    touches = [t for t in _shell_touches(command) if normalised(t.path, cwd) == path and t.kind != READ]
    return [Blind(deleted=any(t.kind == DELETE for t in touches))] if touches else []


def _echoed(words: str) -> tuple[str, ...]:
    try:
        parts = shlex.split(words)
    except ValueError:
        return ()
    if parts and parts[0] == "-e":
        parts = parts[1:]
    text = " ".join(parts)
    return lines_of(text.replace("\\n", "\n").removesuffix("\n"))


_PLAIN = re.compile(r"^[\w .,:=+-]*$")  # sed text with no regular-expression or escape meaning
_SUBSTITUTE = re.compile(r"^s(.)(.*?)\1(.*?)\1(g?)$")
_DELETE_LINES = re.compile(r"^(\d+)(?:,(\d+))?d$")


def sed_in_place(command: str, path: str, cwd: str | None) -> Sed | None:
    """``sed -i SCRIPT FILE`` (GNU ``-i``, ``-i.bak``, BSD ``-i ''``, ``-e SCRIPT``) on ``path``
    with one simple command; None for anything else (another file, several scripts, a regular
    expression), which stays a blind change."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) < 3 or words[0] != "sed" or not any(w == "-i" or w.startswith("-i") for w in words[1:]):
        return None
    operands = _sed_operands(words[1:])
    if operands is None:
        return None
    scripts, files = operands
    if len(scripts) != 1 or len(files) != 1 or normalised(files[0], cwd) != path:
        return None
    return _sed_script(scripts[0].strip())


def _sed_operands(words: list[str]) -> tuple[list[str], list[str]] | None:
    """(scripts, files) of sed's arguments; None where an option we do not read is given
    (-n, -f, -z ...)."""
    scripts: list[str] = []
    files: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "-i" and i + 1 < len(words) and words[i + 1] == "":
            i += 2  # BSD: -i '' (no backup suffix)
        elif word == "-e" and i + 1 < len(words):
            scripts.append(words[i + 1])
            i += 2
        elif word.startswith("-"):
            if word not in ("-i", "-E", "-r") and not word.startswith("-i."):
                return None
            i += 1
        else:
            (files if scripts else scripts).append(word)
            i += 1
    return scripts, files


def _sed_script(script: str) -> Sed | None:
    """One ``Nd`` / ``N,Md`` or a plain ``s/old/new/[g]``; None for anything else."""
    if m := _DELETE_LINES.match(script):
        first = int(m.group(1))
        return Sed(delete=(first, int(m.group(2) or first)))
    if (m := _SUBSTITUTE.match(script)) and m.group(2) and _PLAIN.match(m.group(2)) and _PLAIN.match(m.group(3)):
        return Sed(old=m.group(2), new=m.group(3), every=bool(m.group(4)))
    return None

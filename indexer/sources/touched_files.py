"""Which files a tool call touched, and how: the ``files_touched`` table's rows.

Agent-agnostic: every parser stores a tool call's name and arguments (``ParsedMessage.detail``),
and the names differ little (Claude ``Read``/``Edit``/``MultiEdit``/``Write``/``NotebookEdit``/
``Bash``, Codex ``shell``/``exec_command``/``apply_patch``, Pi ``read``/``edit``/``write``/``bash``).
Shell commands are read conservatively: only a few programs whose file arguments are plain
(``cat``, ``sed``, ``vim``, ``rm``, ``mv``, ``cp``, ``git add``...), only tokens that look like
paths, never anything with a variable, a glob or a substitution in it.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

READ, EDIT, WRITE, DELETE, SHELL = "read", "edit", "write", "delete", "shell"
KINDS = (READ, EDIT, WRITE, DELETE, SHELL)
MAX_TOUCHES_PER_CALL = 50
MAX_PATH_CHARS = 1024

_PATH_KEYS = ("file_path", "notebook_path", "path", "filename", "file")
_TOOL_KINDS = {
    "read": READ, "read_file": READ, "view": READ, "notebookread": READ, "open_file": READ,
    "edit": EDIT, "multiedit": EDIT, "multi_edit": EDIT, "notebookedit": EDIT, "edit_file": EDIT,
    "str_replace_editor": EDIT, "str_replace_based_edit_tool": EDIT,
    "write": WRITE, "write_file": WRITE, "create_file": WRITE,
}
_SHELL_TOOLS = {"bash", "shell", "exec_command", "local_shell", "local_shell_call", "shell_command", "container.exec"}
_PATCH_HEADER = re.compile(r"^\*\*\* (Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.MULTILINE)
_PATCH_KINDS = {"Update": EDIT, "Add": WRITE, "Delete": DELETE}
_SEPARATORS = {";", "&&", "||", "|", "&", "(", ")", "\n"}
_REDIRECTS = {">": WRITE, ">>": WRITE, "<": READ}
_READERS = {"cat", "less", "more", "head", "tail", "bat", "nl", "wc", "view"}
_EDITORS = {"vim", "vi", "nvim", "nano", "emacs", "code", "ed"}
_UNSAFE = re.compile(r"[$`*?\[\]{}~<>|;&()\\]")
_LOOKS_LIKE_PATH = re.compile(r"[/.]")


@dataclass(frozen=True, slots=True)
class Touch:
    path: str  # normalised: absolute against the session's folder when it was relative
    kind: str  # read, edit, write, delete or shell


def touches_of(tool_name: str | None, args: Any, cwd: str | None) -> list[Touch]:
    """The files one tool call touched. ``args`` is the call's arguments as parsed JSON."""
    name = (tool_name or "").strip().lower()
    out: list[Touch] = []
    if isinstance(args, dict):
        folder = _text(args.get("workdir")) or _text(args.get("working_directory")) or _text(args.get("cwd"))
        cwd = _joined(cwd, folder) if folder else cwd
    if name == "apply_patch":
        out += _patch_touches(_patch_text(args), cwd)
    elif name in _TOOL_KINDS and isinstance(args, dict):
        path = next((p for k in _PATH_KEYS if (p := _text(args.get(k)))), "")
        if path:
            out.append(Touch(path, _TOOL_KINDS[name]))
    elif name in _SHELL_TOOLS:
        command = _command_text(args)
        if command:
            out += _patch_touches(command, None)
            out += _shell_touches(command)
    seen: set[Touch] = set()
    result = []
    for touch in out:
        normal = normalised(touch.path, cwd)
        if normal is None:
            continue
        t = Touch(normal, touch.kind)
        if t not in seen:
            seen.add(t)
            result.append(t)
    return result[:MAX_TOUCHES_PER_CALL]


def normalised(path: str, cwd: str | None) -> str | None:
    """Absolute against ``cwd`` when relative, ``..`` and ``.`` collapsed; None when it is not
    a plausible path (empty, too long, a URL)."""
    path = path.strip()
    if not path or len(path) > MAX_PATH_CHARS or "\n" in path or "://" in path or "\x00" in path:
        return None
    if re.match(r"^[A-Za-z]:[\\/]", path):  # a Windows path: kept as it was written
        return path
    if not path.startswith("/") and cwd and cwd.startswith("/"):
        path = posixpath.join(cwd, path)
    normal = posixpath.normpath(path)
    return normal if normal not in (".", "/") else None


def _joined(cwd: str | None, folder: str) -> str:
    return folder if folder.startswith("/") or not cwd else posixpath.join(cwd, folder)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _patch_text(args: Any) -> str:
    if isinstance(args, str):
        return args
    if isinstance(args, dict):
        return _text(args.get("input")) or _text(args.get("patch"))
    return ""


def _patch_touches(patch: str, cwd: str | None) -> list[Touch]:
    if "*** " not in patch:
        return []
    touches = []
    for action, path, moved_to in _PATCH_HEADER.findall(patch):
        touches.append(Touch(moved_to, WRITE) if moved_to else Touch(path, _PATCH_KINDS[action]))
    return touches


def _command_text(args: Any) -> str:
    if isinstance(args, dict):
        args = args.get("command", args.get("cmd"))
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        if len(args) >= 3 and args[1] in ("-lc", "-c"):
            return args[2]
        return shlex.join(args)
    return args if isinstance(args, str) else ""


@lru_cache(maxsize=2048)
def _shell_touches(command: str) -> tuple[Touch, ...]:
    """What one shell command touched. Cached: agents run the same commands over and over
    (``git status``, the test command), and shlex costs ~0.2 ms each (8% of a cold build's
    CPU on the generated tree, where a few dozen commands repeat)."""
    if "<<" in command:  # a here-document: only its first line is a command
        command = command.split("\n", 1)[0]
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace = " \t\r"
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # an unclosed quote: not a command we can read safely
        return ()
    touches: list[Touch] = []
    simple: list[str] = []
    redirect: str | None = None
    for token in [*tokens, ";"]:
        if redirect:
            if _plain_path(token):
                touches.append(Touch(token, _REDIRECTS[redirect]))
            redirect = None
            continue
        if token in _REDIRECTS:
            redirect = token
            continue
        if token in _SEPARATORS or set(token) <= set(";&|()<>\n"):
            touches += _command_touches(simple)
            simple = []
            continue
        simple.append(token)
    return tuple(touches)


def _command_touches(words: list[str]) -> list[Touch]:
    """What one simple command (no separators, no redirections) touched, by its program."""
    while words and (_ASSIGNMENT.match(words[0]) or words[0] in ("sudo", "command", "time")):
        words = words[1:]
    if not words:
        return []
    program, args = posixpath.basename(words[0]), words[1:]
    special = _SPECIAL_PROGRAMS.get(program)
    if special is not None:
        return special(program, args)
    kind = _KIND_OF_PROGRAM.get(program)
    return [] if kind is None else [Touch(p, kind) for p in _path_operands(args)]


def _path_operands(args: list[str]) -> list[str]:
    return [a for a in args if not a.startswith("-") and _plain_path(a)]


def _sed_touches(_program: str, args: list[str]) -> list[Touch]:
    in_place = any(a.startswith("-i") or a == "--in-place" for a in args)
    scripted = any(a in ("-e", "-f") or a.startswith("--expression") for a in args)
    operands = [a for a in args if not a.startswith("-")]
    files = operands if scripted else operands[1:]  # without -e the first operand is the script
    return [Touch(p, EDIT if in_place else READ) for p in files if _plain_path(p)]


def _move_or_copy_touches(program: str, args: list[str]) -> list[Touch]:
    paths = _path_operands(args)
    if len(paths) < 2:
        return []
    first = DELETE if program == "mv" else READ
    return [*(Touch(p, first) for p in paths[:-1]), Touch(paths[-1], WRITE)]


def _git_touches(_program: str, args: list[str]) -> list[Touch]:
    if not args or args[0] not in _GIT_FILE_COMMANDS:
        return []
    kind = DELETE if args[0] == "rm" else SHELL
    return [Touch(p, kind) for p in _path_operands(args[1:])]


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")  # VAR=value before the program
_GIT_FILE_COMMANDS = frozenset(("add", "rm", "checkout", "restore", "diff", "log", "blame"))
_KIND_OF_PROGRAM = {**dict.fromkeys(_READERS, READ), **dict.fromkeys(_EDITORS, EDIT),
                    "rm": DELETE, "unlink": DELETE, "touch": WRITE, "tee": WRITE}
_SPECIAL_PROGRAMS = {"sed": _sed_touches, "mv": _move_or_copy_touches, "cp": _move_or_copy_touches,
                     "git": _git_touches}


def _plain_path(token: str) -> bool:
    """A literal file name: has a ``/`` or a ``.``, no variable, glob or substitution."""
    return (bool(token) and len(token) <= MAX_PATH_CHARS and not _UNSAFE.search(token)
            and bool(_LOOKS_LIKE_PATH.search(token)) and token not in (".", ".."))


def touches_in(messages: list, cwd: str | None) -> list[tuple[str, str, float | None, int]]:
    """(path, kind, latest time, calls) for every file the tool calls among ``messages`` (parsed
    messages, their arguments as JSON in ``detail``) touched, each (path, kind) once."""
    latest: dict[tuple[str, str], float | None] = {}
    calls: dict[tuple[str, str], int] = {}
    for m in messages:
        if m.kind != "tool_call":
            continue
        for touch in paths_in_call(m.tool_name, m.detail, cwd):
            key = (touch.path, touch.kind)
            calls[key] = calls.get(key, 0) + 1
            if key not in latest or (m.ts is not None and (latest[key] is None or m.ts > latest[key])):
                latest[key] = m.ts
    return [(path, kind, ts, calls[(path, kind)]) for (path, kind), ts in latest.items()]


def paths_in_call(tool_name: str | None, detail: str | None, cwd: str | None) -> list[Touch]:
    """The files one stored tool call touched (its arguments as JSON), for the app's per-file view."""
    if not detail:
        return []
    try:
        args = orjson.loads(detail)  # several times faster; what it reads differently (ints
    except orjson.JSONDecodeError:  # beyond 64 bits) is never a path
        try:
            args = json.loads(detail)  # NaN, a lone surrogate, nesting orjson refuses
        except (ValueError, RecursionError):
            return []
    return touches_of(tool_name, args, cwd)

"""The part of a tool's output that search indexes: the lines that say something went wrong.

People look for a session by the error they half remember: the pytest ``FAILED`` line, the last
line of a traceback, a compiler's ``error TS2304``, ``npm ERR!``, a ``Permission denied``. Those
lines are often the only place the words appear; the rest of an output (file listings, passing
tests, a file's text) buries them and would grow the index several times over. Measured on a
real-format tree, indexing these lines grows the index by 1.5% of the logs, finding as much as
the whole output at a thirtieth of its size (``docs/search-recall.md``). A file's text shown by a
read tool or printed by ``cat``/``sed -n``/``rg`` is code, not what happened, and is left out; a
log file printed so (``tail -n 50 app.log``) is what happened, and is kept.
"""

from __future__ import annotations

import re

LINE_CHARS = 200  # of one kept line
TOTAL_CHARS = 800  # kept per output
SCAN_CHARS = 200_000  # of an output's start: a huge log dump is read no further
_REJECTED = "[error] The user doesn't want to"  # Claude Code's answer to a refused call: the same every time
READ_TOOLS = frozenset({"read", "read_file", "view", "readfile", "cat_file", "notebookread"})

_WORTH_KEEPING = re.compile(
    r"(?i)(?:\w*error|\w*exception|errors|traceback|failed|failures?|fatal|panic(?:ked)?|warning|denied|refused|"
    r"no such|cannot|can't|unable to|timed out|timeout|segmentation fault|aborted|killed|not found|errno"
    r"|exit (?:code|status):? [1-9])\b"
    r"|^E {2,}|^FAILED |^ERROR |npm ERR!|^\s*File \".+\", line \d+"
)
# What a line the pattern keeps must hold, lower-cased: found with ``str.find`` (in C) over the
# whole output, so the pattern itself only reads the lines they are on. A regular expression of
# these words run over every output was the build's biggest cost after SQLite (0.9 s of 5).
_NEEDLES = ("error", "exception", "traceback", "fail", "fatal", "panic", "warning", "denied", "refused", "no such",
            "cannot", "can't", "unable to", "timed out", "timeout", "segmentation fault", "aborted", "killed",
            "not found", "errno", "exit code", "exit status", "\ne  ", "npm err!", 'file "')
_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}
NEEDLE_HITS = 64  # lines looked at per needle: enough to fill TOTAL_CHARS many times over


# Lines of code and diffs, not of a program's run: ``raise``, ``throw new Error(``, ``catch (e) {``.
_CODE = re.compile(
    r"^[+-]|^\s*\d+(?:→|\t|:)|\bnew \w*(?:Error|Exception)\b|\b(?:raise|throw|except|catch)\b|console\.(?:error|warn)"
    r"|[{;,(]$|^\s*(?:def|class|function|const|let|var|if|elif|else|for|while|return|import|from|export|async|try)\b"
)
# Commands whose output shows files or searches them (Codex reads files with the shell): the
# text is code, not what happened.
_SHOWING = frozenset({"cat", "sed", "head", "tail", "nl", "less", "more", "bat", "rg", "grep", "ag", "find", "ls",
                      "tree", "awk", "jq", "wc", "diff", "fd", "git"})
_SHOWING_GIT = frozenset({"diff", "show", "log", "blame", "grep", "ls-files"})
_LOG_FOLDER = re.compile(r"(?:^|/)logs?/")
_SHELL_PREFIX = re.compile(r"^(?:(?:ba|z)?sh\s+-l?c\s+)?['\"]?")


def shows_files(call_line: str | None) -> bool:
    """Whether a tool call, as its one-line form (``[shell] cd app && sed -n 1,80p cart.py``),
    ran a command that prints files or searches them."""
    if not call_line or "] " not in call_line:
        return False
    command = _SHELL_PREFIX.sub("", call_line.split("] ", 1)[1].strip())
    for part in re.split(r"\s*(?:&&|;)\s*", command):
        words = part.split()
        if not words or words[0] == "cd":
            continue
        first = words[0].rsplit("/", 1)[-1]
        if any(word.endswith(".log") or _LOG_FOLDER.search(word) for word in words[1:]):
            return False  # a log file shown: what a program said, the lines searched for
        if first == "git":
            return len(words) > 1 and words[1] in _SHOWING_GIT
        return first in _SHOWING
    return False


def output_excerpt(text: str, tool_name: str | None = None, call_line: str | None = None) -> str:
    """The lines of a tool's output worth searching (each once, at most ``LINE_CHARS`` each and
    ``TOTAL_CHARS`` in all), or "" when there are none, the tool only showed a file, or the call
    (``call_line``: its one-line form) printed files."""
    if not text or (tool_name or "").lower() in READ_TOOLS or shows_files(call_line):
        return ""
    if text.startswith(_REJECTED) and "following reason" not in text[:400]:
        return ""  # the same words every time; a refusal with the person's reason goes on
    kept: list[str] = []
    seen: set[str] = set()
    size = 0
    head = text[:SCAN_CHARS]
    low = "\n" + head.lower()  # a newline first: a line-start needle finds line 1 too
    if len(low) != len(head) + 1:  # a character that lower-cases to two ("İ"): offsets must hold
        low = "\n" + head.translate(_ASCII_LOWER)
    for line_start in sorted(_line_starts(low)):
        line_end = low.find("\n", line_start)
        line = text[line_start - 1:(line_end if line_end >= 0 else len(low)) - 1].strip()
        if not line or line in seen or not _WORTH_KEEPING.search(line) or _CODE.search(line):
            continue
        seen.add(line)
        line = line[:LINE_CHARS]
        kept.append(line)
        size += len(line) + 1
        if size >= TOTAL_CHARS:
            break
    return "\n".join(kept)


def _line_starts(low: str) -> set[int]:
    """Where the lines holding a needle start in ``low`` (each line once)."""
    starts: set[int] = set()
    for needle in _NEEDLES:
        at = low.find(needle)
        for _ in range(NEEDLE_HITS):
            if at < 0:
                break
            if needle[0] == "\n":
                at += 1  # the needle's line starts after its newline
            starts.add(low.rfind("\n", 0, at) + 1 if at else 1)
            next_line = low.find("\n", at + 1)
            at = low.find(needle, next_line) if next_line >= 0 else -1
    return starts

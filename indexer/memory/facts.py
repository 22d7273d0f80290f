"""fact.yml: stable preferences and rules, one top-level key per fact.

The file is the user's: we parse it with ruamel.yaml (round-trip mode) to read values and
positions, but archive and restore edit the *text* of the one fact they touch, so every other
line (comments, quoting, indentation) stays byte for byte the same.

An archived fact keeps its key and wraps its value, the original text moved one level in::

    name: Alice  # what to call me         name:
                                 ->          archived: true
                                             archived_at: '2026-04-02T09:15:00+00:00'
                                             value: Alice  # what to call me

A top-level mapping whose keys are ``archived: true``, ``value`` and optionally
``archived_at`` is an archived fact; restoring puts the ``value`` text back under the key.
After each edit the new text is parsed and checked to hold exactly the intended change (same
other facts, same order, no comment line lost) before anything is written.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from pathlib import Path

from indexer.util.fileio import FileStamp, atomic_write_text
from indexer.util.named_record import NamedTuple
from indexer.util.quick_json import dumps, loads
from indexer.memory.errors import (
    FactEditError,
    FactFileError,
    MemoryNotFoundError,
    YamlIssue,
)
from indexer.memory.timeutil import iso
from indexer.memory.yaml_bounds import check_alias_expansion

TYPE_CHECKING = False
if TYPE_CHECKING:  # ruamel (~10 ms to load) is imported where a text is parsed: no fact.yml, no ruamel
    from typing import Any
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.nodes import MappingNode, Node

WRAPPER_KEYS = {"archived", "archived_at", "value"}


class Fact(NamedTuple):
    key: str
    value: Any  # plain Python (dict/list/str/int/...); for an archived fact, the wrapped value
    line: int  # 1-based line of the key
    archived: bool = False
    archived_at: str | None = None

    @property
    def value_text(self) -> str:
        if isinstance(self.value, str):
            return self.value
        if self.value is None:
            return ""
        return dumps(self.value, default=str)

    @property
    def search_text(self) -> str:
        return f"{self.key}\n{self.value_text}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "value": loads(dumps(self.value, default=str)),
            "line": self.line,
            "archived": self.archived,
            "archived_at": self.archived_at,
        }


def _yaml() -> YAML:
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.preserve_quotes = True
    return y


def _plain(value: Any) -> Any:
    """ruamel's round-trip types -> plain dict/list/str/int/float/bool/None/datetime."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, datetime):
        return value
    tagged = getattr(value, "value", None)  # TaggedScalar and friends
    return _plain(tagged) if tagged is not None else str(value)


def _issue(exc: YAMLError) -> YamlIssue:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).strip().splitlines()[0]
    context = getattr(exc, "context", None)
    message = f"{problem} ({context})" if context and context not in problem else problem
    if mark is None:
        return YamlIssue(1, 1, message)
    return YamlIssue(mark.line + 1, mark.column + 1, message)


def _load(text: str) -> Any:
    """Parse, raising ``FactFileError`` (path unset) with line and column on any problem."""
    from ruamel.yaml.error import YAMLError

    try:
        doc = _yaml().load(_parseable(text))
        check_alias_expansion(doc)
    except FactFileError:
        raise
    except YAMLError as exc:
        raise FactFileError(None, [_issue(exc)]) from None
    except Exception as exc:  # ruamel raises a few non-YAMLError types on odd input
        raise FactFileError(None, [YamlIssue(1, 1, str(exc))]) from None
    if doc is not None and not isinstance(doc, dict):
        raise FactFileError(
            None, [YamlIssue(1, 1, "fact.yml must be a mapping of fact names to values")]
        )
    return doc


def _decoded(data: bytes) -> str:
    """fact.yml's text; bytes that are not UTF-8 are kept as surrogate escapes, so a rewrite
    (an archive, a save from the editor) writes them back byte for byte."""
    return data.decode("utf-8", "surrogateescape")


# Both patterns are compiled on first use (~1 ms together): a session start with no fact.yml
# needs neither.
_SURROGATES = "[\ud800-\udfff]"


def _parseable(text: str) -> str:
    """What the YAML parser reads: each surrogate (a byte that was not UTF-8) as U+FFFD, one
    character for one, so lines and columns stay those of ``text``."""
    return re.sub(_SURROGATES, "\ufffd", text)


def validate(text: str) -> list[YamlIssue]:
    """Problems that would stop ``text`` being saved as fact.yml (empty list: fine)."""
    try:
        _load(text)
    except FactFileError as exc:
        return exc.issues
    return []


def _is_wrapper(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("archived") is True
        and "value" in value
        and set(map(str, value)) <= WRAPPER_KEYS
    )


def facts_from(doc: Any) -> list[Fact]:
    if not doc:
        return []
    out = []
    for key, value in doc.items():
        line = doc.lc.key(key)[0] + 1
        if _is_wrapper(value):
            stamp = value.get("archived_at")
            out.append(
                Fact(str(key), _plain(value["value"]), line, True,
                     str(stamp) if stamp is not None else None)
            )
        else:
            out.append(Fact(str(key), _plain(value), line))
    return out


# --- text surgery -------------------------------------------------------------------------


_BREAK = "\r\n\x85\u2028\u2029"  # what ruamel counts as a line break
_LINE = rf"[^{_BREAK}]*(?:\r\n|[{_BREAK}])|[^{_BREAK}]+$"


def _split(text: str) -> list[str]:
    """Lines with their endings, broken where ruamel counts a line break (so marks agree)."""
    return re.findall(_LINE, text)


def _is_empty(node: Node) -> bool:
    """``key:`` with nothing after it: ruamel marks that null somewhere after the key."""
    from ruamel.yaml.nodes import ScalarNode

    return isinstance(node, ScalarNode) and node.value == "" and not node.style


def _last_line(node: Node) -> int:
    """0-based line of the last character that belongs to ``node``."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    if isinstance(node, ScalarNode) or getattr(node, "flow_style", False):
        end = node.end_mark
        if end.column == 0 and end.line > node.start_mark.line:
            return end.line - 1
        return end.line
    children: list[Node] = []
    if isinstance(node, MappingNode):
        for k, v in node.value:
            children += [k] if _is_empty(v) else [k, v]
    elif isinstance(node, SequenceNode):
        children = list(node.value)
    if not children:
        return node.start_mark.line
    return max(_last_line(c) for c in children)


def _pair(root: MappingNode, key: str) -> tuple[Node, Node]:
    from ruamel.yaml.nodes import ScalarNode

    for k, v in root.value:
        if isinstance(k, ScalarNode) and str(k.value) == key:
            return k, v
    raise MemoryNotFoundError(f"no fact {key!r}")


def _after_colon(line: str, column: int) -> tuple[str, str]:
    """Split a ``key: rest`` line at the colon that follows the key ending at ``column``."""
    i = column
    while i < len(line) and line[i] in " \t":
        i += 1
    if i >= len(line) or line[i] != ":":
        raise FactEditError("cannot find the ':' after the key; edit fact.yml by hand")
    return line[: i + 1], line[i + 1 :]


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def _indent_unit(lines: list[str]) -> int:
    widths = [
        len(x) - len(x.lstrip(" "))
        for x in lines
        if x.strip() and not x.lstrip().startswith("#") and x.startswith(" ")
    ]
    return min(widths) if widths else 2


def _comment_lines(text: str) -> Counter[str]:
    return Counter(x.strip() for x in _split(text) if x.strip().startswith("#"))


def archive_text(text: str, key: str, now: datetime) -> str:
    from ruamel.yaml.nodes import MappingNode

    root = _yaml().compose(_parseable(text))
    if not isinstance(root, MappingNode):
        raise MemoryNotFoundError(f"no fact {key!r}")
    knode, vnode = _pair(root, key)
    lines = _split(text)
    first = knode.start_mark.line
    if knode.start_mark.column != 0 or knode.end_mark.line != first:
        raise FactEditError(f"fact {key!r} is not a plain top-level key; edit fact.yml by hand")
    last = first if _is_empty(vnode) else max(first, _last_line(vnode))
    head, rest = _after_colon(lines[first], knode.end_mark.column)
    nl = _ending(lines[first]) or "\n"
    pad = " " * _indent_unit(lines)
    block = [
        head + nl,
        f"{pad}archived: true{nl}",
        f"{pad}archived_at: '{iso(now)}'{nl}",
        f"{pad}value:{rest}",
    ]
    for line in lines[first + 1 : last + 1]:
        block.append(pad + line if line.strip() else line)
    if not block[-1].endswith("\n") and last + 1 < len(lines):
        block[-1] += nl
    return "".join(lines[:first] + block + lines[last + 1 :])


def restore_text(text: str, key: str) -> str:
    from ruamel.yaml.nodes import MappingNode

    root = _yaml().compose(_parseable(text))
    if not isinstance(root, MappingNode):
        raise MemoryNotFoundError(f"no fact {key!r}")
    knode, wnode = _pair(root, key)
    if not isinstance(wnode, MappingNode):
        raise FactEditError(f"fact {key!r} is not archived")
    vk, vv = _pair(wnode, "value")
    lines = _split(text)
    first = knode.start_mark.line
    wrapper_last = max(first, _last_line(wnode))
    vfirst = vk.start_mark.line
    vlast = vfirst if _is_empty(vv) else max(vfirst, _last_line(vv))
    depth = vk.start_mark.column
    head, key_rest = _after_colon(lines[first], knode.end_mark.column)
    _, value_rest = _after_colon(lines[vfirst], vk.end_mark.column)
    nl = _ending(lines[first]) or "\n"
    block: list[str] = []
    if key_rest.strip():  # a comment the user put on the key line
        block.append(key_rest.strip() + nl)
    block.append(head + value_rest)
    for line in lines[vfirst + 1 : vlast + 1]:
        if line[:depth].strip():
            block.append(line.lstrip(" "))
        else:
            block.append(line[depth:] if line.strip() else line)
    for n in range(first + 1, wrapper_last + 1):
        if vfirst <= n <= vlast:
            continue
        if lines[n].strip().startswith("#"):  # keep comments, drop the archived: markers
            block.append(lines[n].lstrip(" "))
    if not block[-1].endswith("\n") and wrapper_last + 1 < len(lines):
        block[-1] += nl
    return "".join(lines[:first] + block + lines[wrapper_last + 1 :])


def _check_edit(old: str, new: str, key: str, expect: Any) -> None:
    """Refuse an edit that changed anything but ``key``'s value, or lost a comment line."""
    try:
        before, after = _load(old) or {}, _load(new) or {}
    except FactFileError as exc:
        raise FactEditError(f"editing {key!r} would break fact.yml ({exc})") from None
    old_keys, new_keys = [str(k) for k in before], [str(k) for k in after]
    if old_keys != new_keys:
        raise FactEditError(f"editing {key!r} would change other facts; edit fact.yml by hand")
    for k in before:
        want = expect if str(k) == key else _plain(before[k])
        if _plain(after[k]) != want:
            raise FactEditError(f"editing {key!r} would change {k!r}; edit fact.yml by hand")
    if _comment_lines(old) - _comment_lines(new):
        raise FactEditError(f"editing {key!r} would lose a comment; edit fact.yml by hand")


# --- the file -----------------------------------------------------------------------------


class FactFile:
    """fact.yml as loaded. A broken file loads fine but ``facts()`` raises with line/column."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.reload()

    def reload(self) -> None:
        self.error: FactFileError | None = None
        self._doc: Any = None
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            self.stamp = FileStamp.of(self.path)
            self.text = ""
            return
        self.stamp = FileStamp.of_bytes(self.path, data)
        self.text = _decoded(data)
        try:
            self._doc = _load(self.text)
            self.error = None
        except FactFileError as exc:
            self._doc = None
            self.error = FactFileError(self.path, exc.issues)

    def is_stale(self) -> bool:
        """Whether fact.yml changed on disk since it was loaded or written by us."""
        current = FileStamp.of(self.path)
        return (current.exists, current.sha256) != (self.stamp.exists, self.stamp.sha256)

    def facts(self, *, include_archived: bool = False) -> list[Fact]:
        if self.error:
            raise self.error
        return [f for f in facts_from(self._doc) if include_archived or not f.archived]

    def get(self, key: str) -> Fact:
        for fact in self.facts(include_archived=True):
            if fact.key == key:
                return fact
        raise MemoryNotFoundError(f"no fact {key!r}")

    def save_text(self, text: str) -> None:
        """Validate, then write ``text`` as the new fact.yml (atomic, with backup)."""
        issues = validate(text)
        if issues:
            raise FactFileError(self.path, issues)
        self.stamp = atomic_write_text(self.path, text, expect=self.stamp)
        self.text = text
        self._doc = _load(text)
        self.error = None

    def archive(self, key: str, now: datetime) -> Fact:
        fact = self.get(key)
        if fact.archived:
            return fact
        new = archive_text(self.text, key, now)
        _check_edit(self.text, new, key, {"archived": True, "archived_at": iso(now),
                                         "value": fact.value})
        self.save_text(new)
        return self.get(key)

    def restore(self, key: str) -> Fact:
        fact = self.get(key)
        if not fact.archived:
            return fact
        new = restore_text(self.text, key)
        _check_edit(self.text, new, key, fact.value)
        self.save_text(new)
        return self.get(key)

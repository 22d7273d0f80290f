"""The search query language, parsed without ever raising a syntax error at the user.

    plain words          all must match (substring, case-insensitive, Traditional = Simplified)
    "quoted phrase"      matches exactly that run of characters
    a OR b               either
    NOT word             must not match (always)
    -word / -"phrase"    must not match, unless the line is a command line (below)
    agent: project: session: role: since: until: file: in:output   filters: every one, its
                         value and its SQL are one entry of ``indexer.search.filters``

A line that looks like a pasted command (it has a flag such as ``-s`` or ``--no-ff``, a pipe or
``&&``, a leading ``VAR=value`` or ``sudo``) is searched literally: every ``-x`` in it is a word
to find, not an exclusion. One-letter flags (``-s``, ``-1``) are always words. A ``-word`` right
after another word (``ls -la``, ``java -version``) may be a flag too: ``ambiguous`` lists those,
and the search takes them literally when that pair occurs in the index. One-letter words are dropped with a
note; anything else not understood is searched for literally.

The same parsed ``Query`` drives the session index (``indexer.search``) and the memory store.
"""

from __future__ import annotations

import functools
import re

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.text.cjk import is_cjk  # noqa: F401 - also imported from here
from indexer.util.named_record import NamedTuple
from indexer.search import filters as registry
from indexer.search.dates import _relative, parse_date  # noqa: F401 - also imported from here
from indexer.search.matching import occurs_in, spans_of
from indexer.text.fold import fold

MAX_QUERY_CHARS = 4000  # a longer paste is cut here (with a note)
MAX_TERMS = 32  # words searched for; the rest of a huge paste is dropped (with a note)

_TOKEN = re.compile(r'-?"[^"]*(?:"|$)|\S+')
_SHELL_OPERATORS = {"|", "||", "&&", ";", ">", ">>", "<", "2>&1", "&>", "$", "\\"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


# Patterns compiled on first use (the flag pattern alone takes ~1 ms): a line of plain words
# needs none of them, as every flag starts with "-", an assignment holds "=", and only a
# ``since:``/``until:`` filter reads a date (``indexer.search.dates``).
@functools.cache
def _short_flag() -> re.Pattern[str]:
    """-s, -1, -O2, -j8, -std=c11: always an option. (-la or -rm could be either: see ``ambiguous``.)"""
    return re.compile(r"^-[A-Za-z0-9]$|^-[0-9]+$|^-[A-Za-z][0-9]+$|^-[A-Za-z0-9][^=\s]*=")


@functools.cache
def _long_flag() -> re.Pattern[str]:
    return re.compile(r"^--[A-Za-z0-9]")


@functools.cache
def _env_assignment() -> re.Pattern[str]:
    return re.compile(r"^[A-Z_][A-Z0-9_]*=\S")


class QueryError(ValueError, ThreadbackError):
    """A query we cannot answer, with a message fit to show the user as it is."""
    kind = errors.USAGE


class Term(NamedTuple):
    text: str
    phrase: bool = False


class Query(NamedTuple):
    """A parsed query: an AND of OR-groups of terms, exclusions, and filters."""

    raw: str
    groups: tuple[tuple[Term, ...], ...] = ()
    excluded: tuple[Term, ...] = ()
    agent: str | None = None
    project: str | None = None
    session: str | None = None
    role: str | None = None
    since: float | None = None
    until: float | None = None
    file: str | None = None  # a path a tool call touched (``indexer.store.file_sessions``)
    output: str | None = None  # tool output: "only" (in:output) or "none" (-in:output)
    warnings: tuple[str, ...] = ()  # a filter that could not be used
    notes: tuple[str, ...] = ()  # how the line was read: dropped words, a command line
    # The positive words in the order typed (one-letter ones too): a message holding this run
    # is the strongest evidence. Empty when OR makes the order meaningless.
    literal_line: str = ""
    # ``-word`` exclusions that may be a flag of the word before them: (exclusion, "word -word"),
    # and what ``literal_line`` would be if every one of them were a flag.
    ambiguous: tuple[tuple[Term, str], ...] = ()
    line_as_command: str = ""

    @property
    def positive_terms(self) -> list[Term]:
        return [t for g in self.groups for t in g]

    @property
    def has_filters(self) -> bool:
        return any(getattr(self, f.field) is not None for f in registry.session_filters())

    @property
    def is_empty(self) -> bool:
        return not self.groups and not self.excluded and not self.has_filters


def _unquote(token: str) -> str:
    if token.startswith('"'):
        token = token[1:]
        if token.endswith('"'):
            token = token[:-1]
    return token


def looks_like_command_line(tokens: list[str]) -> bool:
    """A pasted shell command: a flag, a shell operator, ``VAR=value`` or ``sudo`` first, ``.`` as
    an argument. In one, ``-word`` is an option to find, not a word to exclude."""
    if not tokens:
        return False
    if tokens[0] == "sudo" or ("=" in tokens[0] and _env_assignment().match(tokens[0])):
        return True
    return any(
        (t[:1] == "-" and (_short_flag().match(t) or _long_flag().match(t))) or t in _SHELL_OPERATORS
        or t in (".", "..")
        for t in tokens
    )


def is_searchable_alone(text: str) -> bool:
    """Whether a word means anything on its own: two characters or more, or one CJK character
    (表, 改 and 加 are words); a single Latin letter, digit or sign matches nearly everything."""
    return len(text) >= 2 or (len(text) == 1 and is_cjk(text))


def _clean(text: str, notes: list[str]) -> str:
    if _CONTROL.search(text):
        text = _CONTROL.sub(" ", text)
        notes.append("control characters in the query were ignored")
    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS]
        notes.append(f"only the first {MAX_QUERY_CHARS:,} characters of the query were searched")
    if text.isascii():  # already NFC: no ``unicodedata`` (a C extension, ~0.2 ms to load)
        return text
    import unicodedata

    return unicodedata.normalize("NFC", text)


class _Builder:
    """What ``parse_query`` collects, token by token."""

    def __init__(self, now: float, command_line: bool) -> None:
        self.now = now
        self.command_line = command_line  # a pasted command: its -flags are words, not exclusions
        self.negate_next = False  # NOT was the token before
        self.groups: list[list[Term]] = []
        self.excluded: list[Term] = []
        self.ambiguous: list[tuple[Term, str]] = []
        self.filters: dict[str, object] = {}
        self.warnings: list[str] = []
        self.dropped: list[str] = []
        self.line: list[str] = []
        self.line_as_command: list[str] = []
        self.seen: set[str] = set()
        self.pending_or = False
        self.used_or = False
        self.previous_word: str | None = None  # the bare word just before, for ``word -word``

    def add(self, term: Term, as_typed: str) -> None:
        self.line.append(as_typed)
        self.line_as_command.append(as_typed)
        key = fold(term.text).lower()
        if not is_searchable_alone(term.text):
            self.dropped.append(term.text)
        elif key not in self.seen:
            self.seen.add(key)
            if self.pending_or and self.groups:
                self.groups[-1].append(term)
                self.used_or = True
            else:
                self.groups.append([term])
        self.pending_or = False

    def exclude(self, term: Term, *, maybe_flag_of: str | None = None) -> None:
        if maybe_flag_of:
            self.ambiguous.append((term, f"{maybe_flag_of} -{term.text}"))
            self.line_as_command.append(f"-{term.text}")
        self.excluded.append(term)

    def add_filter(self, entry: registry.Filter, key: str, value: str, now: float) -> None:
        if not value:
            self.warnings.append(f"{key}: needs a value")
            return
        parsed = entry.parse(value, now) if entry.parse else value
        if isinstance(parsed, str) and parsed.startswith("!"):
            self.warnings.append(parsed[1:])  # the registry's warning: not a date, not a place
            return
        self.filters[entry.field] = parsed

    def take(self, token: str) -> None:
        """One token of the query: an operator, a filter, or a word (searched or excluded)."""
        if not (self._operator(token) or self._filter(token)):
            self._word(token)

    def _operator(self, token: str) -> bool:
        if token in ("OR", "AND"):
            self.pending_or = token == "OR" and bool(self.groups)
            return True
        if token == "NOT":
            self.negate_next = True
            return True
        return False

    def _filter(self, token: str) -> bool:
        """``key:value`` of the filter registry, or a filter's negated form (``-in:output`` /
        ``NOT in:output``: leave tool output out)."""
        if not self.negated_filter(token, self.negate_next):
            key, sep, value = token.partition(":")
            entry = registry.named(key) if sep and not token.startswith(('"', "-")) else None
            if entry is None:
                return False
            self.add_filter(entry, key.lower(), _unquote(value), self.now)
        self.pending_or, self.negate_next, self.previous_word = False, False, None
        return True

    def _word(self, token: str) -> None:
        phrase = token.lstrip("-").startswith('"')
        dash = token.startswith("-") and len(token) > 1
        body = _unquote(token[1:] if dash and phrase else token)
        body = body.strip() if phrase else body
        if not body:
            self.negate_next = False
            return
        if self.negate_next:
            self.exclude(Term(body, phrase=phrase))
            self.negate_next, self.previous_word = False, None
            return
        if dash and not self.command_line and (phrase or _is_exclusion(body)):
            word = body if phrase else body[1:]
            flag_like = not phrase and word.isascii()
            self.exclude(Term(word, phrase=phrase), maybe_flag_of=self.previous_word if flag_like else None)
            self.previous_word = token if flag_like and self.previous_word else None  # -noout -dates: a chain
            return
        self.add(Term(body, phrase=phrase), as_typed=token if self.command_line else body)
        self.previous_word = None if phrase else body

    def negated_filter(self, token: str, negated: bool) -> bool:
        """``-in:output`` / ``NOT in:output``: a filter's negated form, when it has one."""
        key, sep, value = token.partition(":")
        if not sep or not (negated or token.startswith("-")):
            return False
        entry = registry.named(key.lstrip("-"))
        if entry is None or entry.negate is None:
            return False
        negated_value = entry.negate(value)
        if negated_value is None:
            return False
        self.filters[entry.field] = negated_value
        return True


def parse_query(text: str, now: float) -> Query:
    """Parse ``text``; never raises. Unknown syntax becomes literal search text."""
    notes: list[str] = []
    text = _clean(text, notes)
    tokens = _TOKEN.findall(text)
    command_line = looks_like_command_line(tokens)
    b = _Builder(now, command_line)
    for token in tokens:
        b.take(token)
    return _finish(text, b, notes, command_line)


def _is_exclusion(token: str) -> bool:
    """``-word``: a dash, then a word of 2+ characters (or any CJK word); ``-s`` and ``-O2``
    are flags, ``--x`` an option, ``-->`` and ``-5`` just text."""
    body = token[1:]
    if not body or body.startswith("-") or _short_flag().match(token):
        return False
    return body[0].isalpha() or is_cjk(body[0])


def _finish(text: str, b: _Builder, notes: list[str], command_line: bool) -> Query:
    groups = b.groups
    total = sum(len(g) for g in groups)
    if total > MAX_TERMS:
        kept, count = [], 0
        for g in groups:
            if count + len(g) > MAX_TERMS:
                break
            kept.append(g)
            count += len(g)
        groups = kept
        notes.append(f"only the first {count} of {total:,} words were searched")
    if b.dropped:
        shown = " ".join(f"“{d}”" for d in dict.fromkeys(b.dropped))
        notes.append(f"ignored {shown}: one letter or sign matches nearly everything")
    if command_line and any(t.text.startswith("-") for g in groups for t in g):
        notes.append("read as a command line: its -flags are searched for (use NOT word to exclude)")
    f = b.filters
    return Query(
        raw=text,
        groups=tuple(tuple(g) for g in groups),
        excluded=tuple(b.excluded[:MAX_TERMS]),
        **f,  # type: ignore[arg-type]  # each value parsed to its field's type by the filter registry
        warnings=tuple(b.warnings),
        notes=tuple(notes),
        literal_line="" if b.used_or else " ".join(b.line),
        ambiguous=tuple(b.ambiguous),
        line_as_command="" if b.used_or else " ".join(b.line_as_command),
    )


def taking_literally(query: Query, flags: list[Term]) -> Query:
    """``query`` with the ambiguous exclusions in ``flags`` searched for instead (a command's
    flags, as the index showed: ``java -version`` was typed somewhere)."""
    if not flags:
        return query
    chosen = {id(t) for t in flags}
    words = [Term("-" + t.text) for t in flags]
    return query._replace(
        groups=query.groups + tuple((w,) for w in words),
        excluded=tuple(t for t in query.excluded if id(t) not in chosen),
        notes=(*query.notes, "read " + ", ".join(f"“-{t.text}”" for t in flags) + " as a flag: that command occurs"),
        literal_line=query.line_as_command,
        ambiguous=tuple(a for a in query.ambiguous if id(a[0]) not in chosen),
        line_as_command=query.line_as_command,
    )


def text_matches(query: Query, text: str) -> bool:
    """Whether ``text`` satisfies the query's terms (filters are the caller's business).

    Substring semantics, ignoring case and Traditional/Simplified, so it agrees with the index
    and works for CJK of any length. Used where the corpus is small enough to scan (memory,
    rules).
    """
    for group in query.groups:
        if not any(occurs_in(text, t.text) for t in group):
            return False
    return not any(occurs_in(text, t.text) for t in query.excluded)


def match_spans(text: str, terms: list[Term]) -> list[tuple[int, int]]:
    """Non-overlapping (start, end) spans of every occurrence of any term in ``text``
    (case-insensitive, Traditional = Simplified)."""
    return spans_of(text, [t.text for t in terms])


def searchable_form(text: str) -> str:
    """Folded and lower-cased, the same length as ``text`` so offsets carry over."""
    low = fold(text).lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in fold(text))

"""Every filter of the query language, in one table: adding one (``model:``) is one entry here
and, for a session filter, the ``Query`` field it fills (a test fails when that is missing).

From this table come the parser's keys (``indexer.search.query``), the SQL that narrows the
index (``indexer.search.candidates.Filters``), the "drop the filter" suggestions, the memory
matching (``indexer.memory.filter``), and every place the syntax is written out: the app's
help screen and placeholders, the CLI's ``search`` help and the MCP tool's schema.

Imported on the search start-up path: nothing here loads more than ``indexer.sources``
(already loaded by the parser), and a date is parsed only when a ``since:``/``until:`` asks.
"""

from __future__ import annotations

from indexer.util.named_record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# Where an entry is written out in the short listings (each a place with little room).
PLACEHOLDER = "placeholder"  # the search box's placeholder and the ``search`` verb's help
SCREEN = "screen"  # the examples line of the app's help screen
SESSIONS = "sessions"  # narrows the session index
MEMORY = "memory"  # matches memory entries only (the Episodic tab, ``memory list``)


class Filter(NamedTuple):
    """One ``key:value`` filter.

    ``parse(value, now)`` gives the value the ``Query`` field ``field`` holds, or a string
    starting with ``!``: the warning shown instead. ``negate(value)``, when set, is the value of
    ``-key:value`` / ``NOT key:value`` (``None``: not a filter, searched as an exclusion).
    ``messages``/``sessions`` give the SQL condition (on ``m`` / ``s``) and its parameters;
    ``memory(entry, values)`` whether a memory entry passes.
    """

    key: str
    help: str  # one line: what it keeps
    example: str  # as typed, e.g. ``agent:codex``
    field: str = ""  # the ``Query`` field it fills ("" for a memory-only filter)
    aliases: tuple[str, ...] = ()
    scope: tuple[str, ...] = (SESSIONS,)
    shown: tuple[str, ...] = ()  # PLACEHOLDER, SCREEN: the short listings that name it
    parse: Callable[[str, float], object] | None = None
    negate: Callable[[str], object] | None = None
    messages: Callable[[object], tuple[str, list]] | None = None
    sessions: Callable[[object], tuple[str, list]] | None = None
    memory: Callable[[object, tuple], bool] | None = None
    suggest: str = ""  # how "drop the filter …" names it ("" : key:value)


def _text(value: str, now: float) -> object:
    return value


def _agent(value: str, now: float) -> object:
    from indexer.sources import agent_named  # already loaded with the parser

    return agent_named(value)


def _date(end_of_day: bool, key: str) -> Callable[[str, float], object]:
    def parse(value: str, now: float) -> object:
        from indexer.search.dates import parse_date  # loaded when a date is asked for

        ts = parse_date(value, now, end_of_day=end_of_day)
        if ts is None:
            return f"!{key}:{value} is not a date (try 2026-04-02, 7d, 3h, 2w, yesterday)"
        return ts
    return parse


def _place(value: str, now: float) -> object:
    if value.lower() not in ("output", "outputs"):
        return f"!in:{value} is not a place to search (try in:output or -in:output)"
    return "only"


def like_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _agent_sql(value: object) -> tuple[str, list]:
    return "s.agent = ?", [value]


def _project_sql(value: object) -> tuple[str, list]:
    pattern = "%" + like_escape(str(value)) + "%"
    return "(s.project_name LIKE ? ESCAPE '\\' OR s.project_path LIKE ? ESCAPE '\\')", [pattern, pattern]


def _session_sql(value: object) -> tuple[str, list]:
    return "s.session_id LIKE ? ESCAPE '\\'", [like_escape(str(value)) + "%"]


def _file_sql(value: object) -> tuple[str, list]:
    """Sessions whose tool calls touched it (the path, or a path ending with it)."""
    from indexer.store.file_sessions import path_condition  # only a ``file:`` filter needs it

    condition, params = path_condition(str(value))
    return f"s.id IN (SELECT session_rowid FROM files_touched WHERE {condition})", params


def _role_sql(value: object) -> tuple[str, list]:
    role = str(value).lower()
    if role in ("tool", "tools"):
        return "m.kind = 'tool_call'", []
    return "m.role = ?", ["user" if role in ("human", "me") else role]


def _output_sql(value: object) -> tuple[str, list]:
    return ("m.role = 'tool'" if value == "only" else "m.role != 'tool'"), []


def _when_ts(entry: object) -> float | None:
    when = getattr(entry, "when", None)
    return when.timestamp() if when is not None else None


def _since_memory(entry: object, values: tuple) -> bool:
    ts = _when_ts(entry)
    return ts is not None and ts >= values[0]  # an undated entry is outside any range


def _until_memory(entry: object, values: tuple) -> bool:
    ts = _when_ts(entry)
    return ts is not None and ts < values[0]


def _type_memory(entry: object, values: tuple) -> bool:
    return str(getattr(entry, "type", "")).lower() in values  # any of the types


def _tag_memory(entry: object, values: tuple) -> bool:
    lowered = {t.lower() for t in getattr(entry, "tags", ())}
    return all(t in lowered for t in values)  # all of the tags


# In this order: the SQL conditions, the suggestions and the listings follow it.
FILTERS: list[Filter] = [
    Filter("agent", "one agent", "agent:codex", field="agent", shown=(PLACEHOLDER, SCREEN), parse=_agent,
           sessions=_agent_sql),
    Filter("project", "project name or path contains this", "project:name", field="project",
           shown=(PLACEHOLDER, SCREEN), parse=_text, sessions=_project_sql),
    Filter("session", "one session (an id or its start)", "session:id", field="session", shown=(SCREEN,),
           parse=_text, sessions=_session_sql),
    Filter("role", "who wrote it: user, assistant, tool", "role:user", field="role", shown=(SCREEN,),
           parse=_text, messages=_role_sql),
    Filter("file", "sessions whose tool calls touched that file (a path or its ending)", "file:src/app.py",
           field="file", parse=_text, sessions=_file_sql),
    Filter("in", "only tool output; -in:output leaves it out", "in:output", field="output", parse=_place,
           negate=lambda v: "none" if v.lower() in ("output", "outputs") else None, messages=_output_sql,
           suggest="-"),
    Filter("since", "from this time on (2026-04-02, 7d, 3h, 2w, yesterday)", "since:7d", field="since",
           scope=(SESSIONS, MEMORY), shown=(PLACEHOLDER, SCREEN), parse=_date(False, "since"),
           messages=lambda v: ("m.ts >= ?", [v]), memory=_since_memory, suggest="since:/until:"),
    Filter("until", "before the end of this time", "until:2026-05-01", field="until", scope=(SESSIONS, MEMORY),
           shown=(SCREEN,), parse=_date(True, "until"), messages=lambda v: ("m.ts < ?", [v]),
           memory=_until_memory, suggest="since:/until:"),
    Filter("type", "memory entries of this type (any of several)", "type:failure", scope=(MEMORY,),
           memory=_type_memory),
    Filter("tag", "memory entries with this tag (all of several)", "tag:safety", scope=(MEMORY,),
           memory=_tag_memory),
]


def session_filters() -> list[Filter]:
    """The filters the session query language reads (``parse_query``)."""
    return [f for f in FILTERS if SESSIONS in f.scope]


def memory_only_filters() -> list[Filter]:
    """The filters only memory lists read (``type:``, ``tag:``)."""
    return [f for f in FILTERS if f.scope == (MEMORY,)]


def named(key: str, filters: list[Filter] | None = None) -> Filter | None:
    """The filter a key (or an alias) names, in any case."""
    k = key.lower()
    for f in session_filters() if filters is None else filters:
        if k == f.key or k in f.aliases:
            return f
    return None


def keys_listed(where: str) -> str:
    """``agent: project: since:``: the keys one short listing names."""
    return " ".join(f"{f.key}:" for f in FILTERS if where in f.shown)


def examples_listed(where: str) -> str:
    """``agent:codex project:name …``: the examples one short listing shows."""
    return " ".join(f.example for f in FILTERS if where in f.shown)


def all_session_keys() -> str:
    """Every session filter as typed, with the negated forms: for the MCP schema."""
    parts = []
    for f in session_filters():
        parts.append(f.example if f.negate else f"{f.key}:")
        if f.negate:
            parts.append("-" + f.example)
    return " ".join(parts)


def help_lines(scope: str = SESSIONS) -> list[str]:
    """One line per filter: its example and what it keeps (the CLI's ``search --help``)."""
    chosen = [f for f in FILTERS if scope in f.scope]
    width = max(len(f.example) for f in chosen)
    return [f"{f.example:<{width}}  {f.help}" for f in chosen]

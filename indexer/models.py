"""The normalised model every agent's logs are parsed into, shared by indexer, CLI and TUI.

Times are UTC epoch seconds (float) so they sort and compare cheaply; ``None`` when a log
did not say.
"""

from __future__ import annotations

from indexer.util.named_record import NamedTuple


# Message kinds.
TEXT = "text"
TOOL_CALL = "tool_call"
TOOL_RESULT = "tool_result"
THINKING = "thinking"
SUMMARY = "summary"
ERROR = "error"  # an API error, a refusal, an aborted turn: searchable ("that error last week")
KINDS = (TEXT, TOOL_CALL, TOOL_RESULT, THINKING, SUMMARY, ERROR)

# Roles. "meta" is text the human did not type (injected skill bodies, AGENTS.md,
# environment context): shown in transcripts, never indexed.
ROLES = ("user", "assistant", "tool", "system", "meta")


class TokenUsage(NamedTuple):
    """A session's tokens: fresh input, output, cache writes and cache reads."""

    input: int = 0
    output: int = 0
    cache_write: int = 0
    cache_read: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_write + self.cache_read

    def as_list(self) -> list[int]:
        return [self.input, self.output, self.cache_write, self.cache_read]


class Session(NamedTuple):
    """One agent session (one log file), with the facts a list or a resume command needs."""

    id: int  # row id in the index
    agent: str
    session_id: str
    parent_session_id: str | None
    source_path: str
    project_path: str | None
    project_name: str | None
    git_branch: str | None
    model: str | None
    title: str | None
    start_ts: float | None
    end_ts: float | None
    message_count: int
    source_missing: bool = False  # the log file is gone; its messages stay searchable
    # The user's own session this one was branched or forked from (Pi, Codex): a top-level
    # session linked to its origin, unlike ``parent_session_id`` (a subagent's spawner).
    branched_from: str | None = None
    resume_cwd: str | None = None  # the folder to resume from when the session moved there
    parent_missing: bool = False  # a subagent whose parent is not in the index: listed at the top
    tokens: TokenUsage | None = None  # None: the log carries no usage, or it was not counted yet
    log_mtime: float | None = None  # when its log file last changed (a copy changes it: "active" reads end_ts)
    archived: bool = False  # the archive holds a copy of its log (``indexer.archive``)

    @property
    def archived_only(self) -> bool:
        """The log is gone and only the archived copy is left (``threadback restore`` brings it back)."""
        return self.source_missing and self.archived


class Message(NamedTuple):
    """One normalised message: a text turn, a tool call, a tool result, thinking or a summary."""

    id: int  # row id in the index (also the FTS rowid)
    session_rowid: int
    ordinal: int  # position within its session, 0-based
    role: str
    kind: str
    tool_name: str | None
    ts: float | None
    text: str
    # Tool-call arguments (JSON) for an expand action. A search hit's are None where the index
    # keeps them in the log (the search path never reads logs): the message read again has them.
    detail: str | None = None
    indexed: bool = True
    mark: str | None = None  # a note shown beside it: "abandoned branch", "retracted", "queued"


class Hit(NamedTuple):
    """One search result: a message, its session and a snippet with the match spans marked."""

    message: Message
    session: Session
    snippet: str
    spans: tuple[tuple[int, int], ...]  # (start, end) character offsets of matches in snippet
    score: float = 0.0
    context_before: tuple[Message, ...] = ()
    context_after: tuple[Message, ...] = ()
    parent: Session | None = None  # a subagent's parent session: the one a resume command opens
    matched: str = "all words"  # how it matched: all words, some words, spelling, meaning


class FileTouches(NamedTuple):
    """One session's touches of one file (``threadback files``): how (read, edit, write,
    delete, shell), in how many tool calls, and when last."""

    session: Session
    path: str
    kinds: tuple[str, ...]
    count: int  # type: ignore[assignment]  # a field named as tuple.count shadows it, as meant
    last_ts: float | None

"""What the MCP server lets any MCP client do: search and read past sessions and memory, and
propose a rule. Everything is read-only except ``propose_rule``, which stores a *pending* rule
that only a person can approve (``threadback rules review``). The memory folder is the one the
hooks and ``context`` use: a project's ``./memory/`` only once the user allowed it
(``indexer.memory.trust``), the global one until then.

Plain Python over ``Index``, ``MemoryStore`` and ``RuleStore``, returning domain objects; the
server (``tui.cli.mcp_server``) turns them into the CLI's JSON shapes. Hits and messages come
back with their secrets masked as the hooks mask them (``indexer.output.masking``: a secret a snippet
cuts off at its edge too); the index keeps the originals. Each call opens what it
needs and closes it, so the server never holds the index open between calls (an index run can
replace files meanwhile).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.index import Index
from indexer.output.masking import masked_message, masked_result
from indexer.models import Message, Session
from indexer.search.fts import SearchResult
from indexer.search.query import parse_date, parse_query
from indexer.sources import agent_named
from indexer.store.errors import IndexError_

if TYPE_CHECKING:  # the memory store loads a YAML library: only the memory tools need it
    from indexer.memory import MemoryHit, MemoryStore
    from indexer.provenance.blame import Blame
    from indexer.rules import ProposeResult, RuleStore

MAX_LIMIT = 100
MAX_CONTEXT = 20
MAX_BLAME_LINES = 400


class ToolInputError(ValueError, ThreadbackError):
    """A request the tools cannot answer, with a message for the client as it is."""
    kind = errors.USAGE


@dataclass(frozen=True, slots=True)
class Transcript:
    session: Session
    messages: tuple[Message, ...]
    more_before: bool
    more_after: bool


@dataclass(frozen=True, slots=True)
class MemoryAnswer:
    folder: Path  # the folder searched
    hits: list[MemoryHit]
    note: str | None  # what was left out and why (a project folder not allowed), or None


@dataclass
class HistoryTools:
    """The tools over one index file and one memory folder."""

    db_path: Path
    memory_dir: str | None = None
    cwd: Path | None = None
    clock: Callable[[], float] = time.time

    # -- the index --------------------------------------------------------------------------
    def _index(self) -> Index:
        if not self.db_path.exists():
            raise ToolInputError(f"no index at {self.db_path} yet: run `threadback index` first")
        index = Index(self.db_path, readonly=True)
        try:
            index.check()
        except IndexError_ as exc:
            index.close()
            raise ToolInputError(str(exc)) from None
        return index

    def _date(self, value: str | None, name: str, *, end: bool = False) -> float | None:
        if not value:
            return None
        ts = parse_date(value, self.clock(), end_of_day=end)
        if ts is None:
            raise ToolInputError(f"{name}={value!r} is not a date (try 2026-04-02, 7d, 3h, 2w, yesterday)")
        return ts

    def search(self, query: str, *, agent: str | None = None, project: str | None = None,
               since: str | None = None, until: str | None = None, per_session: bool = False,
               context: int = 0, limit: int = 10, exclude_sessions: tuple[str, ...] = ()) -> SearchResult:
        """The query language of ``threadback search``; the filters narrow it further. With
        ``per_session`` the session-level search (``threadback search --sessions``): every word
        somewhere in one session, each result a session with its best messages as evidence."""
        if not query.strip():
            raise ToolInputError("query is empty: give the words to search for")
        parsed = parse_query(query, self.clock())
        changes: dict[str, Any] = {}
        if agent:
            changes["agent"] = agent_named(agent)
        if project:
            changes["project"] = project
        if since:
            changes["since"] = self._date(since, "since")
        if until:
            changes["until"] = self._date(until, "until", end=True)
        if changes:
            parsed = parsed._replace(**changes)
        with self._index() as index:
            try:
                result = index.search(parsed, limit=_clamp(limit, 1, MAX_LIMIT), by_session=per_session,
                                      exclude_sessions=exclude_sessions, context=_clamp(context, 0, MAX_CONTEXT))
            except ValueError as exc:  # QueryError: a query the index cannot answer
                raise ToolInputError(str(exc)) from None
        return masked_result(result)  # the session view's evidence and titles too

    def show(self, session: str, *, around: int | None = None, context: int = 5, start: int = 0,
             limit: int = 50) -> Transcript:
        """A window of ``context`` messages around message ``around``, or ``limit`` messages
        from ``start`` (0-based)."""
        with self._index() as index:
            try:
                found = index.session(session)
            except LookupError as exc:  # AmbiguousSessionError
                raise ToolInputError(str(exc)) from None
            if found is None:
                raise ToolInputError(f"no session matches {session!r} (the `sessions` tool lists them)")
            if around is not None:
                center = index.message(around)
                if center is None or center.session_rowid != found.id:
                    raise ToolInputError(f"message {around} is not in session {found.session_id}")
                n = _clamp(context, 0, MAX_CONTEXT)
                before, after = index.context(center, n, n)
                messages = tuple(masked_message(m) for m in (*before, center, *after))
                return Transcript(found, messages, bool(before) and before[0].ordinal > 0,
                                  bool(after) and after[-1].ordinal < found.message_count - 1)
            start = max(0, start)
            page = index.messages(found, start, _clamp(limit, 1, MAX_LIMIT))
            return Transcript(found, tuple(masked_message(m) for m in page), start > 0, start + len(page) < found.message_count)

    def sessions(self, *, agent: str | None = None, project: str | None = None, since: str | None = None,
                 until: str | None = None, text: str | None = None, limit: int = 20) -> list[Session]:
        with self._index() as index:
            return index.sessions(agent=agent_named(agent) if agent else None, project=project,
                                  since=self._date(since, "since"), until=self._date(until, "until", end=True),
                                  text=text or None, parent=None, limit=_clamp(limit, 1, MAX_LIMIT))

    # -- memory and rules -------------------------------------------------------------------
    def memory(self) -> tuple[MemoryStore, str | None]:
        """The memory folder agents are given here (``context.FolderContext``, the allow list
        applied), and the line saying what was left out, if anything."""
        from indexer.agents.context import FolderContext

        folder = FolderContext(self.memory_dir, self.cwd)
        notes = folder.open().items
        assert folder.memory is not None, "open() always picks a folder"
        return folder.memory, (notes[0] if notes else None)

    def memory_search(self, query: str, *, tier: str | None = None, limit: int = 10) -> MemoryAnswer:
        """Facts, episodic entries and scratchpad items; not logged as retrievals (read-only)."""
        from indexer.memory import TIERS

        if not query.strip():
            raise ToolInputError("query is empty: give the words to search for")
        if tier and tier not in TIERS:
            raise ToolInputError(f"tier must be one of {', '.join(TIERS)}")
        now = datetime.fromtimestamp(self.clock(), tz=timezone.utc)
        store, note = self.memory()
        hits = store.search(query, now, tiers=[tier] if tier else TIERS, limit=_clamp(limit, 1, MAX_LIMIT),
                            record=False)
        return MemoryAnswer(store.folder, hits, note)

    def rules(self) -> RuleStore:
        """The rules of the memory folder ``memory`` picks: a proposal never lands in a project
        folder the user has not allowed."""
        from indexer.rules import RuleStore

        return RuleStore(self.memory()[0].folder)  # the rules live in the memory folder

    def propose_rule(self, text: str, *, title: str | None = None, session_id: str | None = None,
                     agent: str | None = None, cite: str | None = None) -> ProposeResult:
        """Store ``text`` as a pending rule (or return the near-duplicate already there);
        ``cite`` (``SESSION[:FROM-TO]``) is stored as its evidence (``indexer.memory.citations``)."""
        if not text.strip():
            raise ToolInputError("text is empty: give the rule to propose")
        evidence = self._citation(cite) if cite else None
        result = self.rules().propose(text, now=self.clock(), agent=agent or "mcp", session_id=session_id,
                                      title=title, actor=f"mcp:{agent}" if agent else "mcp")
        if evidence is not None:
            from indexer.memory.citations import CitationLog

            CitationLog(self.rules().memory_dir).add(evidence._replace(ref=f"rule:{result.rule.id}"))
        return result

    def _citation(self, spec: str):
        """The span ``spec`` read and digested now, or ``ToolInputError`` saying why not."""
        from indexer.provenance.citing import CiteError, cite

        index = self._index()
        try:
            return cite(index, spec, "", datetime.fromtimestamp(self.clock(), timezone.utc))
        except CiteError as exc:
            raise ToolInputError(str(exc)) from None
        finally:
            index.close()


    # -- provenance ---------------------------------------------------------------------------
    def blame(self, path: str, *, first: int | None = None, last: int | None = None) -> Blame:
        """Which session edit last wrote each line of ``path`` (relative to the server's folder),
        ``first``..``last`` only when given (at most ``MAX_BLAME_LINES``)."""
        from indexer.provenance.blame import BlameError, blame_file

        if not path.strip():
            raise ToolInputError("path is empty: give the file to attribute")
        full = os.path.join(str(self.cwd or os.getcwd()), os.path.expanduser(path))
        index = self._index()
        try:
            found = blame_file(index, full)
        except BlameError as exc:
            raise ToolInputError(str(exc)) from None
        finally:
            index.close()
        low = max(1, first or 1)
        high = min(last or first or len(found.lines), low + MAX_BLAME_LINES - 1)
        return replace(found, lines=[line for line in found.lines if low <= line.number <= high])


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, int(value)))


# -- compact answers ------------------------------------------------------------------------
# What an agent needs from a search, in a few hundred tokens: which session, when, where, the
# matching lines and how to open more. The full JSON (``threadback search --json``) stays for
# people and scripts; an agent pays for every byte it is given.
LINE_CHARS = 120  # a matching line, cut at this many characters
LINES_PER_SESSION = 2


def _day(ts: float | None) -> str | None:
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%d") if ts else None


def _line(text: str) -> str:
    flat = " ".join(text.replace("«", "").replace("»", "").split())
    return flat if len(flat) <= LINE_CHARS else flat[: LINE_CHARS - 1] + "…"


def compact_search(result: SearchResult) -> dict:
    """One entry per session, best first: ``session``, ``when``, ``project``, ``agent``,
    ``matched`` (how), ``lines`` (its matching lines) and ``open`` (the ``show`` call that reads
    around the best one); then how the answer was found, and what was tried when it is empty."""
    entries: list[dict] = []
    seen: dict[str, dict] = {}
    hits = [h for s in result.sessions for h in s.evidence] if result.by_session else result.hits
    for hit in hits:
        s = hit.session
        entry = seen.get(s.session_id)
        if entry is None:
            entry = {"session": s.session_id, "when": _day(hit.message.ts or s.start_ts), "project": s.project_name,
                     "agent": s.agent, "matched": hit.matched, "lines": [],
                     "open": f"show(session={s.session_id!r}, around={hit.message.id})"}
            seen[s.session_id] = entry
            entries.append(entry)
        if len(entry["lines"]) < (LINES_PER_SESSION if len(entries) <= 3 else 1):  # the best few: two lines
            entry["lines"].append(_line(hit.snippet))
    body: dict = {"query": result.query.raw, "sessions": entries,
                  "exact": result.exact_total if result.exact_total >= 0 else result.total}
    if result.showing_results_for:
        body["showing_results_for"] = result.showing_results_for
    if result.meaning == "unavailable":
        body["search"] = "lexical (meaning not available)"
    if not entries:
        body["tried"] = list(result.tried) or ["every word in one place"]
        body["not_searched"] = list(result.not_searched)
    return body


def compact_sessions(sessions: list[Session]) -> dict:
    """A session list as an agent reads it: id, when, project, agent, title, size."""
    return {"sessions": [{"session": s.session_id, "when": _day(s.end_ts or s.start_ts), "project": s.project_name,
                          "agent": s.agent, "title": _line(s.title or "")[:72], "messages": s.message_count}
                         for s in sessions],
            "open": "show(session=ID) reads a session; search(query) finds one by what was said"}

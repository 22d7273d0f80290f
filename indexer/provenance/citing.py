"""Memory with evidence: cite a transcript span, check that it still says what was cited, and
tell which files a session or a cited memory touched have changed since.

The citations themselves are kept in the memory folder (``indexer.memory.citations``); this
module is the half that needs the index.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.util.digest import sha256_hex
from indexer.index import Index
from indexer.memory.citations import CHANGED, GONE, OK, Citation, CitationLog
from indexer.memory.timeutil import iso
from indexer.models import Message, Session

_SPEC = re.compile(r"^(?P<session>.+?)(?::(?P<first>\d+)(?:-(?P<last>\d+))?)?$")
MAX_CITED_MESSAGES = 200


class CiteError(ValueError, ThreadbackError):
    """A span that cannot be cited, with a message for people."""
    kind = errors.USAGE


@dataclass(frozen=True, slots=True)
class Span:
    session: Session
    messages: list[Message]

    @property
    def first(self) -> int:
        return self.messages[0].ordinal

    @property
    def last(self) -> int:
        return self.messages[-1].ordinal


def session_key(session: Session) -> str:
    return f"{session.agent}:{session.session_id}"


def digest_of(messages: list[Message]) -> str:
    return sha256_hex("\x1e".join(m.text for m in messages).encode("utf-8", "surrogatepass"))


def resolve_span(index: Index, spec: str) -> Span:
    """``SESSION[:FROM[-TO]]`` (message numbers as ``show`` prints them, 0-based) -> the span.
    Without a range, the whole session (up to ``MAX_CITED_MESSAGES``)."""
    m = _SPEC.match(spec.strip())
    if not m or not m.group("session"):
        raise CiteError(f"cannot read {spec!r} as SESSION[:FROM-TO]")
    ref = m.group("session")
    session = index.session(ref)
    if session is None and ":" in ref:  # agent:id with no range
        session = index.session(spec.strip())
    if session is None:
        raise CiteError(f"no session {ref!r} in the index")
    first = int(m.group("first")) if m.group("first") else 0
    last = int(m.group("last")) if m.group("last") else (first if m.group("first") else first + MAX_CITED_MESSAGES - 1)
    if last < first:
        raise CiteError(f"{spec}: the range goes backwards")
    if last - first + 1 > MAX_CITED_MESSAGES:
        raise CiteError(f"{spec}: cite at most {MAX_CITED_MESSAGES} messages")
    messages = index.messages(session, first, last - first + 1)
    if not messages:
        raise CiteError(f"session {session.session_id} has no message {first}")
    return Span(session, messages)


def cite(index: Index, spec: str, ref: str, now: datetime) -> Citation:
    """A citation of ``spec`` by ``ref`` (not stored: ``CitationLog.add`` does that)."""
    span = resolve_span(index, spec)
    return Citation(ref, session_key(span.session), span.first, span.last, digest_of(span.messages), iso(now))


def citation_status(index: Index, citation: Citation) -> str:
    """``ok``, ``changed`` (the cited text is not what was cited) or ``gone`` (the log is gone and
    not archived, or the session left the index)."""
    session = index.session(citation.session)
    if session is None or (session.source_missing and not session.archived):
        return GONE
    messages = index.messages(session, citation.first, citation.last - citation.first + 1)
    if len(messages) != citation.last - citation.first + 1:
        return CHANGED
    return OK if digest_of(messages) == citation.digest else CHANGED


def check_citations(index: Index, folder: os.PathLike | str, now: datetime) -> list[tuple[Citation, str]]:
    """Check every citation of a memory folder and record what changed (its status, and the
    files its session wrote that changed since); (citation, status)."""
    from indexer.provenance.changed_files import files_changed_since

    log = CitationLog(folder)
    checked = {}
    results = []
    for c in log.all():
        status = citation_status(index, c)
        session = index.session(c.session) if status != GONE else None
        files = tuple(files_changed_since(index, session)) if session is not None else ()
        checked[(c.ref, c.session, c.first, c.last)] = (status, files)
        results.append((c._replace(changed_files=files), status))
    log.record_checks(checked, now)
    return results

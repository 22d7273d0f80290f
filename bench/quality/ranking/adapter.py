"""The thin layer between the scorer and the project: build an index of the corpus and the
hand-written sessions, and turn one query into a ranked list of sessions through ``Index.search``.

Only ``indexer``'s public face is used (``Index``, ``only_roots``, ``QueryError``). The search API
is read defensively (a hit's session may be ``hit.session`` or the hit itself; extra keyword
arguments can be passed through) so the scorer keeps working while search evolves.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Callable

from indexer import Index, QueryError, only_roots

from bench.quality.ranking.score import RankedSession, Refused

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "data" / "corpus"
SESSIONS = ROOT / "bench" / "quality" / "ranking" / "sessions"
# The same fixed "now" as the tests: relative times in queries resolve the same on every run.
FIXED_NOW = 1782864000.0  # 2026-07-01T00:00:00Z
DEPTH = 100  # sessions looked at per query; a relevant session further down counts as a miss


def roots(corpus: Path = CORPUS, sessions: Path = SESSIONS):
    """The normal per-agent roots over both trees (the corpus layout of tests/conftest.py)."""
    return only_roots({
        "claude-code": [corpus / "claude-code" / "projects", sessions / "claude-code" / "projects"],
        "codex": [corpus / "codex" / "sessions", sessions / "codex" / "sessions"],
        "pi": [corpus / "pi", sessions / "pi" / "sessions"],
    })


def build_index(path: Path, corpus: Path = CORPUS, sessions: Path = SESSIONS, now: float = FIXED_NOW) -> Index:
    index = Index(path)
    index.update(roots(corpus, sessions), now=now)
    return index


def session_ranker(index: Index, *, now: float = FIXED_NOW, depth: int = DEPTH,
                   options: dict[str, Any] | None = None) -> Callable[[str], list[RankedSession]]:
    """A function from query text to ranked sessions, the way ``threadback search`` ranks them.

    The CLI parses the text and calls ``Index.search``; so does this, with the best hit of each
    session (``one_per_session``, the CLI's ``-1``) when the search offers it. ``options`` are
    passed to ``Index.search`` as they are (e.g. a future session-level mode).
    """
    accepted = inspect.signature(index.search).parameters
    kwargs: dict[str, Any] = {"limit": depth}
    if "now" in accepted:
        kwargs["now"] = now
    if "one_per_session" in accepted:
        kwargs["one_per_session"] = True
    kwargs.update(options or {})

    def rank(text: str) -> list[RankedSession]:
        try:
            result = index.search(text, **kwargs)
        except QueryError as exc:
            raise Refused(str(exc)) from exc
        except Exception as exc:  # a crash is a refusal too, and the message says which
            raise Refused(f"{type(exc).__name__}: {exc}") from exc
        return [_ranked(hit) for hit in getattr(result, "hits", result)]

    return rank


def _ranked(hit: Any) -> RankedSession:
    session = getattr(hit, "session", hit)
    session_id = getattr(session, "session_id", None) or getattr(hit, "session_id")
    parent = getattr(hit, "parent_session_id", None) or getattr(session, "parent_session_id", None)
    return RankedSession(str(session_id), str(parent) if parent else None)

"""Search hits, results, sessions and messages with their secrets masked, for whatever shows them
to an agent or a person (hooks, the MCP server, ``threadback search`` and ``show``); the index
itself keeps the originals.

A snippet is a window cut out of a message, so a secret can be cut in two at its edge: the
secrets are found in the whole message, and any piece of one that the snippet shows is masked.
"""

from __future__ import annotations

from indexer.models import Hit, Message, Session
from indexer.text.secret_mask import MASK, SecretSpan, find_secrets, mask_secrets, masked_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from indexer.search.fts import SearchResult

_MIN_PIECE = 4  # a shorter cut-off end of a secret gives nothing away


def masked_message(message: Message, found: list[SecretSpan] | None = None) -> Message:
    """``found``: ``find_secrets(message.text)`` when the caller has it (a hit's snippet needs it too)."""
    text = masked_at(message.text, find_secrets(message.text) if found is None else found)
    detail = mask_secrets(message.detail) if message.detail else message.detail
    if text is message.text and detail is message.detail:
        return message
    return message._replace(text=text, detail=detail)


def masked_session(session: Session) -> Session:
    """``session`` with its title masked: a title is the first prompt, where tokens get pasted."""
    title = mask_secrets(session.title) if session.title else session.title
    return session if title is session.title else session._replace(title=title)


def _secret_ranges(snippet: str, secrets: list[tuple[str, str]]) -> list[tuple[int, int, str]]:
    """Where the snippet shows a secret, whole or cut off at either end: (start, end, kind)."""
    ranges = []
    core_start = 1 if snippet.startswith("…") else 0
    core_end = len(snippet) - (1 if snippet.endswith("…") else 0)
    for secret, kind in secrets:
        at = snippet.find(secret)
        while at != -1:
            ranges.append((at, at + len(secret), kind))
            at = snippet.find(secret, at + len(secret))
        for size in range(min(len(secret) - 1, core_end - core_start), _MIN_PIECE - 1, -1):
            if snippet.startswith(secret[-size:], core_start):  # the end of a secret, cut before
                ranges.append((core_start, core_start + size, kind))
                break
        for size in range(min(len(secret) - 1, core_end - core_start), _MIN_PIECE - 1, -1):
            if snippet.endswith(secret[:size], core_start, core_end):  # its start, cut after
                ranges.append((core_end - size, core_end, kind))
                break
    ranges.sort()
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in ranges:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]), merged[-1][2])
        else:
            merged.append((start, end, kind))
    return merged


def masked_snippet(snippet: str, spans: tuple[tuple[int, int], ...], source: str,
                   found: list[SecretSpan] | None = None) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``snippet`` (cut from ``source``) with every secret of ``source`` (``found``, if the
    caller has them) masked, and the match ``spans`` moved to fit; a match inside a secret is
    dropped with it."""
    found = find_secrets(source) if found is None else found
    if not found:
        return snippet, spans
    secrets = [(" ".join(source[s.start:s.end].split()), s.kind) for s in found]
    ranges = _secret_ranges(snippet, secrets)
    if not ranges:
        return snippet, spans
    out, moved, position, shift = [], [], 0, 0
    for start, end, kind in ranges:
        out.append(snippet[position:start])
        mask = MASK.format(kind=kind)
        out.append(mask)
        for s, e in spans:
            if position <= s and e <= start:
                moved.append((s + shift, e + shift))
        shift += len(mask) - (end - start)
        position = end
    out.append(snippet[position:])
    moved += [(s + shift, e + shift) for s, e in spans if s >= position]
    return "".join(out), tuple(moved)


def masked_hit(hit: Hit) -> Hit:
    """``hit`` with its snippet, message and context messages masked: the message's secrets
    are found once for its snippet and its text (half the masking of a page of hits)."""
    found = find_secrets(hit.message.text)
    snippet, spans = masked_snippet(hit.snippet, hit.spans, hit.message.text, found)
    return hit._replace(
        message=masked_message(hit.message, found),
        snippet=snippet,
        spans=spans,
        context_before=tuple(masked_message(m) for m in hit.context_before),
        context_after=tuple(masked_message(m) for m in hit.context_after),
    )


def masked_result(result: SearchResult) -> SearchResult:
    """``result`` with every hit masked (``SearchResult.map_hits``: the session view's evidence
    too) and the session view's titles, which it shows beside the evidence."""
    masked = result.map_hits(masked_hit)
    if not masked.sessions:
        return masked
    sessions = tuple(s._replace(session=masked_session(s.session)) for s in masked.sessions)
    return masked._replace(sessions=sessions)

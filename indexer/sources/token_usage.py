"""Token usage per log file, kept in the parser state so appends keep the totals right.

Each agent logs usage its own way (see FORMATS.md):
- Claude Code: ``message.usage`` on assistant records; one API response is written as several
  records sharing ``message.id``, each repeating the usage (``output_tokens`` grows as it
  streams): each id counts once, with its last record's figures.
- Codex: ``event_msg`` ``token_count`` with a cumulative ``info.total_token_usage``: the last
  one is the session's total. Its ``input_tokens`` includes the cached ones.
- Pi: ``usage {input, output, cacheRead, cacheWrite}`` on each assistant message entry.

Totals live under ``state["_tokens"]``; a file whose state lacks that key was indexed before
tokens were counted (``needs_token_reread``).
"""

from __future__ import annotations

from indexer.models import TokenUsage
from indexer.sources.fields import as_dict, as_int

STATE_KEY = "_tokens"
RECENT_IDS = 32  # Claude message ids whose usage may still be updated by a later record


def _count(value: object) -> int:
    number = as_int(value)
    return number if number is not None and number > 0 else 0


def _tally(state: dict) -> dict:
    tally = state.get(STATE_KEY)
    if not isinstance(tally, dict) or not isinstance(tally.get("sum"), list) or len(tally["sum"]) != 4:
        tally = {"sum": [0, 0, 0, 0], "recent": {}}
        state[STATE_KEY] = tally
    if not isinstance(tally.get("recent"), dict):
        tally["recent"] = {}
    return tally


def start_counting(state: dict) -> None:
    """Mark a file's state as counting tokens from its first line (a whole read)."""
    _tally(state)


def needs_token_reread(state: dict) -> bool:
    """A file indexed before tokens were counted: an append alone would give a partial total."""
    return bool(state) and STATE_KEY not in state


def count_claude(state: dict, message: dict) -> None:
    """One Claude Code assistant record's ``message``: its id's usage replaces an earlier one."""
    usage = as_dict(message.get("usage"))
    if not usage:
        return
    figures = [_count(usage.get("input_tokens")), _count(usage.get("output_tokens")),
               _count(usage.get("cache_creation_input_tokens")), _count(usage.get("cache_read_input_tokens"))]
    tally = _tally(state)
    msg_id = message.get("id")
    recent: dict = tally["recent"]
    if isinstance(msg_id, str) and msg_id:
        before = recent.pop(msg_id, None)
        if isinstance(before, list) and len(before) == 4:
            figures = [max(a, b) for a, b in zip(figures, before)]
            tally["sum"] = [s - b for s, b in zip(tally["sum"], before)]
        recent[msg_id] = figures
        while len(recent) > RECENT_IDS:
            recent.pop(next(iter(recent)))
    tally["sum"] = [s + f for s, f in zip(tally["sum"], figures)]


def count_codex(state: dict, payload: dict) -> None:
    """A Codex ``token_count`` event: its cumulative total replaces the one before."""
    total = as_dict(as_dict(payload.get("info")).get("total_token_usage"))
    if not total:
        return
    cached = _count(total.get("cached_input_tokens"))
    fresh = max(0, _count(total.get("input_tokens")) - cached)
    _tally(state)["sum"] = [fresh, _count(total.get("output_tokens")), 0, cached]


def count_pi(state: dict, message: dict) -> None:
    """A Pi assistant message's ``usage``: each entry is read once, so it simply adds."""
    if message.get("role") != "assistant":
        return
    usage = as_dict(message.get("usage"))
    if not usage:
        return
    figures = [_count(usage.get("input")), _count(usage.get("output")),
               _count(usage.get("cacheWrite")), _count(usage.get("cacheRead"))]
    tally = _tally(state)
    tally["sum"] = [s + f for s, f in zip(tally["sum"], figures)]


def usage_of(state: dict) -> TokenUsage | None:
    """The file's totals so far; None when its log carries no usage."""
    tally = state.get(STATE_KEY)
    if not isinstance(tally, dict):
        return None
    figures = tally.get("sum")
    if not isinstance(figures, list) or len(figures) != 4 or not any(figures):
        return None
    return TokenUsage(*(int(f) for f in figures))

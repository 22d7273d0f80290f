"""Text that SQLite can store: what a log holds is made valid UTF-8 before it reaches the index.

Agents write lone surrogates (``"\\ud83d"``: an emoji cut in half) and file systems hold names
that are not UTF-8; either makes SQLite's driver raise ``UnicodeEncodeError`` and would stop
a whole run. Here, at the one boundary between parsing and storing, such text gets U+FFFD
replacement characters, and a file name its undecodable bytes as ``\\xNN`` (so two such names
never become one). Valid text passes through untouched and almost free.
"""

from __future__ import annotations

from dataclasses import fields

from indexer.sources.base import ParsedMessage, SessionMeta
from indexer.text.storable import storable, storable_or_none, storable_path

__all__ = ["sanitise_message", "sanitise_meta", "storable", "storable_path"]


def sanitise_message(m: ParsedMessage) -> None:
    """Make every text field of a parsed message storable, in place."""
    m.text = storable(m.text)
    m.dedup = storable(m.dedup)
    m.role, m.kind = storable(m.role), storable(m.kind)
    m.tool_name = storable_or_none(m.tool_name)
    m.detail = storable_or_none(m.detail)
    m.mark = storable_or_none(m.mark)


_META_TEXT = tuple(f.name for f in fields(SessionMeta) if f.name != "title_rank")


def sanitise_meta(meta: SessionMeta) -> None:
    """Session ids, folders, branch, model and title made storable, in place."""
    for name in _META_TEXT:
        value = getattr(meta, name)
        if isinstance(value, str):
            setattr(meta, name, storable(value))

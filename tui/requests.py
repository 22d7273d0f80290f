"""What a screen or widget asks the app to do (messages up): they bubble to the app, which acts.

A screen never calls the app; it posts one of these and the app decides how (push a screen,
switch a mode, copy to the clipboard).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from indexer import Session


@dataclass
class OpenTranscript(Message):
    """Show a session's transcript, scrolled to ``message_id`` with ``find`` in the find box."""

    session: Session
    message_id: int | None = None
    find: str = ""


@dataclass
class CopySession(Message):
    """Copy a session's id (``what="id"``) or its resume command (``"resume"``)."""

    session: Session
    what: str


@dataclass
class ResumeSession(Message):
    """Run the session's agent on it (``fork``: on a fork of it), the app suspended meanwhile."""

    session: Session
    fork: bool = False


@dataclass
class OpenMemory(Message):
    """Switch to the memory mode with one memory selected (``MemoryHit.kind`` / ``.id``)."""

    kind: str
    ref: str


@dataclass
class OpenDemo(Message):
    """Switch to the bundled demo sessions."""

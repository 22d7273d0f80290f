"""ctrl+w on a transcript message: remember it as an episodic note that cites it (ctrl+v first on
another message: cite the range between).

The note's summary is the message's first line (secrets masked, clipped); its citation is the
message's span with the digest of its text (``indexer.memory.citations``). A confirmation
comes first, since it writes to the memory folder.
"""

from __future__ import annotations

from indexer import Message, Session
from indexer.memory.citations import CitationLog
from indexer.memory.episodic import EpisodicDraft
from indexer.provenance.citing import cite
from indexer.text.secret_mask import mask_secrets
from tui.worker_errors import severity_of
from tui.app_context import AppContext
from tui.display.log_text import visible
from tui.screens.confirm import ConfirmScreen

SUMMARY_CHARS = 120


def note_summary(message: Message) -> str:
    first = next((line.strip() for line in message.text.splitlines() if line.strip()), "(empty message)")
    first = mask_secrets(first)
    return first if len(first) <= SUMMARY_CHARS else first[: SUMMARY_CHARS - 1] + "…"


def remember_message(screen, context: AppContext, session: Session, message: Message,
                     range_start: int | None = None) -> None:
    """``range_start``: the other end of a range (ctrl+v), the note citing every message between."""
    summary = note_summary(message)
    store = context.memory_store()
    first, last = sorted((message.ordinal, message.ordinal if range_start is None else range_start))
    span = f"{first}-{last}" if first != last else f"{first}"

    def answered(yes: bool | None) -> None:
        if not yes:
            return
        try:
            now = context.aware_now()
            citation = cite(context.index, f"{session.agent}:{session.session_id}:{span}", "", now)
            entry = store.add(EpisodicDraft(summary=summary, type="note"), now)
            CitationLog(store.folder).add(citation._replace(ref=entry.id))
        except Exception as exc:  # a busy or unwritable folder: say so, write nothing more
            screen.notify(visible(f"Could not remember it: {exc}"), severity=severity_of(exc), markup=False)
            return
        screen.notify(visible(f"Remembered as {entry.id}, citing messages {span}."), timeout=4, markup=False)

    what = "this message" if first == last else f"messages {first}-{last}"
    question = f"Remember {what} as an episodic note in {context.path_label(store.folder)}?\n\n{visible(summary)}"
    screen.app.push_screen(ConfirmScreen("Remember this message", question, yes="Remember"), answered)

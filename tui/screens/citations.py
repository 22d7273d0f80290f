"""What a memory cites (``c`` on an episodic entry, a fact or a rule): each cited transcript span,
checked against the index now ("source changed" when its text is not what was cited, or its log
is gone and not archived), and the files its sessions wrote that changed since. Enter opens the
transcript at the first cited message.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from indexer.memory.citations import OK, Citation, CitationLog
from tui.app_context import AppContext
from tui.display.log_text import log_text

STATUS_TEXT = {OK: "ok", "changed": "source changed", "gone": "source changed: its log is gone and not archived"}


@dataclass(frozen=True)
class CheckedCitation:
    citation: Citation
    status: str
    message_id: int | None  # the first cited message, when its session is still indexed
    changed_files: str | None  # "these files changed since: ..." for its session


class CitationsScreen(ModalScreen[None]):
    HELP_TITLE = "What a memory cites"
    BINDINGS = [Binding("escape", "dismiss_none", "Close", id="citations.close")]

    @dataclass
    class Checked(Message):
        rows: list[CheckedCitation]

    def __init__(self, context: AppContext, ref: str, folder) -> None:
        super().__init__()
        self.context, self.ref, self.folder = context, ref, folder
        self.rows: dict[str, CheckedCitation] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="citations-dialog"):
            yield Label(Text("What ") + log_text(self.ref, style="bold") + Text(" cites"), id="citations-title")
            yield OptionList(Option(Text("checking the cited messages...", style="dim"), disabled=True),
                             id="citations-list")
            yield Static(Text("enter: open the transcript at the cited messages · escape: close", style="dim"))

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.check()

    @work(thread=True, exclusive=True, group="citations", exit_on_error=False)
    def check(self) -> None:
        from indexer.provenance.changed_files import changed_line, files_changed_since
        from indexer.provenance.citing import check_citations

        index = self.context.index
        rows = []
        for citation, status in check_citations(index, self.folder, self.context.aware_now()):
            if citation.ref != self.ref:
                continue
            session = index.session(citation.session)
            first = index.messages(session, citation.first, 1) if session else []
            changed = [self.context.path_label(Path(p)) for p in files_changed_since(index, session)] if session else []
            rows.append(CheckedCitation(citation, status, first[0].id if first else None, changed_line(changed)))
        self.post_message(self.Checked(rows))

    def on_citations_screen_checked(self, event: Checked) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        if not event.rows:
            options.add_option(Option(Text("cites nothing (memory cite REF SESSION:FROM-TO adds one)", style="dim"),
                                      disabled=True))
            return
        for n, row in enumerate(event.rows):
            key = f"cite:{n}"
            self.rows[key] = row
            line = Text(no_wrap=True, overflow="ellipsis")
            line.append(f"{STATUS_TEXT.get(row.status, row.status):<16} ",
                        style="bold" if row.status == OK else "bold yellow")
            line.append_text(log_text(row.citation.span()))
            if row.changed_files:
                line.append("\n  ")
                line.append_text(log_text(row.changed_files, style="dim"))
            options.add_option(Option(line, id=key))
        options.highlighted = 0

    @on(OptionList.OptionSelected, "#citations-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        row = self.rows.get(event.option.id or "")
        session = self.context.index.session(row.citation.session) if row else None
        if row is None or session is None or row.message_id is None:
            self.notify("The cited session is not in the index any more.", severity="warning")
            return
        open_transcript = getattr(self.app, "open_transcript", None)
        if open_transcript is not None:
            self.dismiss(None)
            open_transcript(session, row.message_id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def selected_fact_key(pane) -> str | None:
    """The fact whose lines hold the fact editor's cursor (the pane keeps no selection of its own)."""
    row = pane.editor.cursor_location[0] + 1
    facts = [f for f in pane._facts_all() if f.line <= row]
    return max(facts, key=lambda f: f.line).key if facts else None


def recheck_citations(context: AppContext, folder: Path) -> bool:
    """Check every citation of a memory folder against the index (run in a worker: it reads the
    cited messages); whether the set of memories whose source changed moved. Problems are left to
    this screen, which says what is wrong when it is opened."""
    from indexer.errors import ThreadbackError
    from indexer.provenance.citing import check_citations

    log = CitationLog(folder)
    if not log.path.exists():
        return False
    try:
        before = log.changed_refs()
        check_citations(context.index, folder, context.aware_now())
        return log.changed_refs() != before
    except (ThreadbackError, OSError):
        return False

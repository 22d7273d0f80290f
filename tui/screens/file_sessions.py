"""Every session that touched a file: opened with enter on a tool call in a transcript.

One section per file the call touched (a patch names several), each listing the sessions
whose tool calls read, edited, wrote or deleted it, newest first. Enter opens one; the
dialog is dismissed with the chosen session.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from indexer import Session
from indexer.models import FileTouches
from tui.app_context import AppContext
from tui.display.humanize_time import clock
from tui.display.log_text import log_text, one_line
from tui.worker_errors import ReportsWorkerErrors


class FileSessionsScreen(ReportsWorkerErrors, ModalScreen[Session | None]):
    HELP_TITLE = "Sessions that touched a file"
    BINDINGS = [Binding("escape", "dismiss_none", "Close", id="file_sessions.close"),
                Binding("b", "blame", "Who wrote each line", id="file_sessions.blame")]

    @dataclass
    class Loaded(Message):
        found: list[tuple[str, list[FileTouches]]]

    def __init__(self, context: AppContext, paths: list[str], current: Session | None = None) -> None:
        super().__init__()
        self.context, self.paths, self.current = context, paths, current
        self.sessions: dict[str, Session] = {}
        self.path_of: dict[str, str] = {}  # row key -> the file its section is about

    def compose(self) -> ComposeResult:
        with Vertical(id="file-sessions-dialog"):
            yield Label("Sessions that touched " + ("this file" if len(self.paths) == 1 else "these files"),
                        id="file-sessions-title")
            yield OptionList(id="file-sessions-list")
            yield Static(Text("enter: open the session · b: who wrote each line · escape: close", style="dim"),
                         id="file-sessions-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.load()

    @work(thread=True, exclusive=True, group="file-sessions", exit_on_error=False)
    def load(self) -> None:
        index = self.context.index
        self.post_message(self.Loaded([(path, index.files_touched(path)) for path in self.paths]))

    def on_file_sessions_screen_loaded(self, event: Loaded) -> None:
        options = self.query_one(OptionList)
        for path, touches in event.found:
            options.add_option(Option(log_text(path, style="bold"), disabled=True))
            if not touches:
                options.add_option(Option(Text("  no indexed session touched it", style="dim"), disabled=True))
            for touch in touches:
                key = f"{touch.session.id}:{len(self.sessions)}"
                self.sessions[key] = touch.session
                self.path_of[key] = path
                options.add_option(Option(self._row(touch), id=key))
        first = next((i for i in range(options.option_count) if not options.get_option_at_index(i).disabled), None)
        if first is not None:
            options.highlighted = first

    def _row(self, touch: FileTouches) -> Text:
        s = touch.session
        row = Text(no_wrap=True, overflow="ellipsis")
        row.append("  " + (clock(touch.last_ts) if touch.last_ts else "--") + "  ", style="dim")
        row.append(f"{'/'.join(touch.kinds):<11} ", style="bold")
        row.append(f"{s.agent} · {s.project_name or '?'} · ")
        this = self.current is not None and s.id == self.current.id
        row.append_text(log_text(one_line(s.title or s.session_id, 30 if this else 46)))
        if this:
            row.append("  (this session)", style="dim")
        return row

    @on(OptionList.OptionSelected, "#file-sessions-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        session = self.sessions.get(event.option.id or "")
        if session is not None:
            self.dismiss(session)

    def action_blame(self) -> None:
        """The highlighted session's file (the first file when nothing is highlighted), line by line."""
        from tui.screens.blame import BlameScreen

        options = self.query_one(OptionList)
        highlighted = options.highlighted
        key = options.get_option_at_index(highlighted).id if highlighted is not None else None
        self.app.push_screen(BlameScreen(self.context, self.path_of.get(key or "", self.paths[0])))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

"""A file as it is now, each line with the session whose edit last wrote it (``b`` on a file's
sessions). Enter on a line opens that session's transcript at the edit.

The attribution runs in a thread worker (it reads tool calls back from their logs and runs git);
lines are rows of an ``OptionList`` keyed by line number, never found by their text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from indexer.provenance.blame import Blame, BlameError, BlameLine, blame_file
from tui.app_context import AppContext
from tui.display.humanize_time import clock
from tui.display.log_text import log_text, one_line
from tui.worker_errors import ReportsWorkerErrors

MAX_ROWS = 5000  # a longer file shows its first lines; `threadback blame FILE:FROM-TO` reads the rest
WHO_WIDTH = 33  # "claude 1a2b3c4d 2026-03-01 09:00" and the "?" of an unsure line


class BlameScreen(ReportsWorkerErrors, Screen):
    HELP_TITLE = "Who wrote each line"
    BINDINGS = [Binding("escape", "close", "Close", id="blame.close")]

    @dataclass
    class Loaded(Message):
        blame: Blame | None
        problem: str | None

    def __init__(self, context: AppContext, path: str) -> None:
        super().__init__()
        self.context, self.path = context, path
        self.lines: dict[str, BlameLine] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="blame-view"):
            folder, name = os.path.split(self.path)
            title = Text("Who wrote each line of ", style="bold")
            title.append_text(log_text(name, style="bold"))
            if folder:
                title.append("  " + self.context.path_label(Path(folder)), style="dim")
            yield Label(title, id="blame-title")
            yield OptionList(Option(Text("attributing lines...", style="dim"), disabled=True), id="blame-lines")
            yield Static("", id="blame-summary")
            yield Static(Text("enter: open the session at the edit · escape: close", style="dim"), id="blame-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.attribute()

    @work(thread=True, exclusive=True, group="blame", exit_on_error=False)
    def attribute(self) -> None:
        try:
            self.post_message(self.Loaded(blame_file(self.context.index, self.path), None))
        except BlameError as exc:
            self.post_message(self.Loaded(None, str(exc)))

    def on_blame_screen_loaded(self, event: Loaded) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        if event.blame is None:
            options.add_option(Option(log_text(event.problem or "cannot attribute this file"), disabled=True))
            return
        blame = event.blame
        width = len(str(len(blame.lines)))
        options.add_options(self._row(line, width) for line in blame.lines[:MAX_ROWS])
        written = sum(1 for line in blame.lines if line.session)
        how = "git narrowed the candidates" if blame.git else "not in a git work tree: from the logs alone"
        more = f" · first {MAX_ROWS} lines shown" if len(blame.lines) > MAX_ROWS else ""
        self.query_one("#blame-summary", Static).update(Text(
            f"{written} of {len(blame.lines)} lines written by {len(blame.sessions())} session(s) · {how}{more}",
            style="dim"))
        first = next((i for i, line in enumerate(blame.lines[:MAX_ROWS]) if line.session), None)
        if first is not None:
            options.highlighted = first

    def _row(self, line: BlameLine, width: int) -> Option:
        key = f"line:{line.number}"
        self.lines[key] = line
        row = Text(no_wrap=True, overflow="ellipsis")
        if line.session is not None and line.message is not None:
            who = f"{line.session.agent[:6]} {line.session.session_id[:8]} {clock(line.message.ts)}"
            row.append(f"{who + ('?' if not line.certain else ''):<{WHO_WIDTH}}", style="bold" if line.certain else "")
        else:
            row.append(f"{'·':<{WHO_WIDTH}}", style="dim")
        row.append(f" {line.number:>{width}} │ ", style="dim")
        row.append_text(log_text(one_line(line.text, 400)))
        return Option(row, id=key)

    @on(OptionList.OptionSelected, "#blame-lines")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        line = self.lines.get(event.option.id or "")
        if line is None or line.session is None or line.message is None:
            self.notify("No session's edit wrote this line.", timeout=3)
            return
        open_transcript = getattr(self.app, "open_transcript", None)
        if open_transcript is not None:
            open_transcript(line.session, line.message.id)

    def action_close(self) -> None:
        self.dismiss()

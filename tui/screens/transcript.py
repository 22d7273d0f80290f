"""A session's transcript, opened from a hit (scrolled to it), a tree node, or the palette."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static

from indexer import Message as LogMessage, Session
from indexer.activity import is_active
from indexer.config import export_dir
from indexer.sources.touched import paths_in_call
from tui.app_context import AppContext
from tui.clipboard import copy_text
from tui.display.log_text import visible
from tui.exporting import export_session
from tui.requests import CopySession, ResumeSession
from tui.screens.export_choice import ExportChoiceScreen
from tui.screens.file_sessions import FileSessionsScreen
from tui.display.humanize_time import ago, clock, duration
from tui.display.log_text import log_text
from tui.display.words import plural
from tui.widgets.message_list import MessageList
from tui.widgets.key_footer import KeyFooter
from tui.widgets.status_bar import StatusBar
from tui.worker_errors import ReportsWorkerErrors


class TranscriptScreen(ReportsWorkerErrors, Screen):
    HELP_TITLE = "Transcript"  # its keys' section in the help screen
    BINDINGS = [
        Binding("escape", "close", "Back", id="transcript.back"),
        Binding("slash,ctrl+f", "find", "Find", id="transcript.find", key_display="/"),
        Binding("n", "find_next(1)", "Next", id="transcript.find_next"),
        Binding("N", "find_next(-1)", "Previous match", id="transcript.find_prev", key_display="N", show=False),
        Binding("y", "copy('id')", "Copy id", id="transcript.copy_id"),
        Binding("r", "copy('resume')", "Copy resume", id="transcript.copy_resume"),
        Binding("R", "resume(False)", "Resume", id="transcript.resume", key_display="R"),
        Binding("F", "resume(True)", "Fork", id="transcript.fork", key_display="F", show=False),
        Binding("x", "export", "Export", id="transcript.export"),
        Binding("S", "toggle_secrets", "Show secrets", id="transcript.secrets", key_display="S", show=False),
        Binding("H", "handoff", "Hand off to an agent…", id="transcript.handoff", key_display="H", show=False),
        Binding("M", "remember", "Remember this message…", id="transcript.remember", key_display="M", show=False),
        Binding("V", "range_start", "Start a range to remember", id="transcript.range_start", key_display="V",
                show=False),
    ]

    @dataclass
    class Loaded(Message):
        messages: list[LogMessage]

    @dataclass
    class Exported(Message):
        path: Path | None
        fmt: str
        problem: str = ""

    def __init__(self, context: AppContext, session: Session, *, focus_message_id: int | None = None,
                 find: str = "") -> None:
        super().__init__()
        self.context = context
        self.session = session
        self.focus_message_id = focus_message_id
        self.range_start: int | None = None  # V: where a range to remember (M) starts
        self.initial_find = find

    def compose(self) -> ComposeResult:
        yield Static(self._header(), id="transcript-header")
        yield MessageList(id="messages")
        yield Input(placeholder="Find in this transcript (enter: next, escape: close)", id="find")
        yield Static(id="find-info")
        yield StatusBar(self.context)
        yield KeyFooter()

    def _header(self) -> Text:
        s = self.session
        now = self.context.now()
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append_text(log_text((s.title or "(untitled session)").splitlines()[0][:200] if s.title else "(untitled session)",
                                  style="bold"))
        text.append("\n")
        bits = [s.agent, s.project_name or "?", s.session_id, f"{clock(s.start_ts)} ({ago(s.start_ts, now)})"]
        if span := duration(s.start_ts, s.end_ts):
            bits.append(span)
        bits.append(plural(s.message_count, "message"))
        if s.parent_session_id:
            bits.append(f"subagent of {s.parent_session_id[:12]}")
        if s.branched_from:
            bits.append(f"branched from {s.branched_from[:12]}")
        if s.archived_only:
            bits.append("log file deleted, archived copy only")
        elif s.source_missing:
            bits.append("log file deleted")
        elif is_active(s, now):
            bits.append("active")
        text.append_text(log_text(" · ".join(bits), style="dim"))
        return text

    def on_mount(self) -> None:
        self.query_one(MessageList).focus()
        self.load_messages()
        self.context.watch(self, "live_generation", self._live_update, init=False)

    def _live_update(self, _generation: int) -> None:
        self.load_new_messages()

    @work(thread=True, exclusive=True, group="transcript-live", exit_on_error=False)
    def load_new_messages(self) -> None:
        """New lines in its log: the session (its header) and its messages read again."""
        index = self.context.index
        session = index.session(self.session.id)
        if session is not None and session != self.session:
            self.post_message(self.Grown(session, index.messages(session)))

    @dataclass
    class Grown(Message):
        session: Session
        messages: list[LogMessage]

    def on_transcript_screen_grown(self, event: Grown) -> None:
        self.session = event.session
        self.query_one("#transcript-header", Static).update(self._header())
        self.query_one(MessageList).update_messages(event.messages)

    @work(thread=True, exclusive=True, group="transcript", exit_on_error=False)
    def load_messages(self) -> None:
        self.post_message(self.Loaded(self.context.index.messages(self.session)))

    def on_transcript_screen_loaded(self, event: Loaded) -> None:
        messages = self.query_one(MessageList)
        messages.show_messages(event.messages, self.focus_message_id, needle=self.initial_find)

    # -- find ------------------------------------------------------------------------------
    def action_toggle_secrets(self) -> None:
        """API keys, tokens and passwords are masked; S shows them (the index keeps them)."""
        messages = self.query_one(MessageList)
        messages.show_secrets(not messages.reveal_secrets)
        self.notify("Secrets shown in full: S masks them again." if messages.reveal_secrets
                    else "Secrets masked again.")

    def action_find(self) -> None:
        self.add_class("-finding")
        find = self.query_one("#find", Input)
        find.value = self.query_one(MessageList).needle
        find.focus()

    @on(Input.Submitted, "#find")
    def _find_submitted(self, event: Input.Submitted) -> None:
        messages = self.query_one(MessageList)
        if event.value.strip() != messages.needle:
            messages.find(event.value)
        else:
            messages.find_next(1)

    def action_find_next(self, step: int) -> None:
        messages = self.query_one(MessageList)
        if not messages.needle:
            self.action_find()
            return
        messages.find_next(step)

    @on(MessageList.FindMoved)
    def _find_moved(self, event: MessageList.FindMoved) -> None:
        info = self.query_one("#find-info", Static)
        if not event.needle:
            info.update("")
        elif event.count:
            info.update(Text(f"match {event.position} of {event.count} for ", style="dim") + log_text(event.needle)
                        + Text("  (n / N: next / previous)", style="dim"))
        else:
            info.update(Text("no matches for ", style="dim") + log_text(event.needle))
        self.add_class("-found")

    @on(MessageList.Opened)
    def _opened(self, event: MessageList.Opened) -> None:
        """Enter on a tool call: every session that touched its files (a modal); a call that
        touched none expands."""
        m = event.message
        paths = list(dict.fromkeys(t.path for t in paths_in_call(m.tool_name, m.detail, self.session.project_path)))
        if not paths:
            self.query_one(MessageList).action_toggle()
            return

        def chosen(session: Session | None) -> None:
            if session is not None and session.id != self.session.id:
                self.app.push_screen(TranscriptScreen(self.context, session, find=paths[0].rsplit("/", 1)[-1]))

        self.app.push_screen(FileSessionsScreen(self.context, paths, self.session), chosen)

    def action_close(self) -> None:
        if self.query_one("#find", Input).has_focus:
            self.remove_class("-finding")
            self.query_one(MessageList).focus()
            return
        self.dismiss()

    def action_copy(self, what: str) -> None:
        self.post_message(CopySession(self.session, what))

    def action_resume(self, fork: bool) -> None:
        self.post_message(ResumeSession(self.session, fork))

    def action_handoff(self) -> None:
        from tui.screens.handoff import HandoffScreen

        self.app.push_screen(HandoffScreen(self.context, self.session))

    def action_range_start(self) -> None:
        """``M`` then remembers from this message to the current one."""
        message = self.query_one(MessageList).current_message
        if message is not None:
            self.range_start = message.ordinal
            self.notify(f"From message {message.ordinal}: M remembers up to the current one.", timeout=3)

    def action_remember(self) -> None:
        """The current message (or the range from ``V``) as an episodic note citing it, after a
        confirmation: it writes."""
        from tui.screens.remember import remember_message

        message = self.query_one(MessageList).current_message
        if message is not None:
            start, self.range_start = self.range_start, None
            remember_message(self, self.context, self.session, message, start)

    # -- export ----------------------------------------------------------------------------
    def action_export(self) -> None:
        reveal = self.query_one(MessageList).reveal_secrets

        def chosen(fmt: str | None) -> None:
            if fmt:
                self.export_session(fmt, reveal)

        self.app.push_screen(ExportChoiceScreen(self.context.path_label(export_dir()), reveal), chosen)

    @work(thread=True, group="export", exit_on_error=False)
    def export_session(self, fmt: str, reveal_secrets: bool) -> None:
        try:
            path = export_session(self.context.index, self.session, fmt, export_dir(), now=self.context.now(),
                                  reveal_secrets=reveal_secrets)
        except OSError as exc:
            self.post_message(self.Exported(None, fmt, f"{exc.strerror or exc}"))
            return
        self.post_message(self.Exported(path, fmt))

    def on_transcript_screen_exported(self, event: Exported) -> None:
        name = {"md": "Markdown", "html": "HTML", "json": "JSON"}[event.fmt]
        if event.path is None:
            self.notify(visible(f"Could not write the {name} export: {event.problem}"), severity="error",
                        markup=False)
            return
        copy_text(self.app, str(event.path))
        self.notify(visible(f"{self.context.path_label(event.path)}\n(the path is copied)"),
                    title=f"Exported as {name}", timeout=6, markup=False)

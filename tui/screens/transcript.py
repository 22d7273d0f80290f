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
from textual.widget import Widget
from textual.widgets import Input, Static

from indexer import Message as LogMessage, Session
from indexer.activity import is_active
from indexer.config import export_dir
from indexer.sources.touched_files import paths_in_call
from tui.app_context import AppContext
from tui.clipboard import copy_text
from tui.display.log_text import visible
from tui.session_export import export_session
from tui.requests import CopySession, ResumeSession
from tui.screens.export_choice import ExportChoiceScreen
from tui.screens.file_sessions import FileSessionsScreen
from tui.screens.subagent_links import call_of_subagent, is_subagent_call, subagent_of_call
from tui.display.humanize_time import ago, clock, duration
from tui.display.log_text import log_text
from tui.display.counts import plural
from tui.widgets.message_list import MessageList
from tui.widgets.key_footer import KeyFooter
from tui.widgets.status_bar import StatusBar
from tui.worker_errors import ReportsWorkerErrors


class TranscriptScreen(ReportsWorkerErrors, Screen):
    HELP_TITLE = "Transcript"  # its keys' section in the help screen
    HELP_NOTE = ("Typing on the messages finds what you type (enter or ↓ / ↑ for the next / previous "
                 "match). Enter on a Task or Agent call opens the subagent; in a subagent, ctrl+o opens "
                 "its parent at that call. A fork asks first (enter forks, esc cancels).")
    # Letters typed on the messages go to the find box (the app's type-ahead, ``type_ahead_box``):
    # every key here has a modifier, and the fork asks first.
    BINDINGS = [
        Binding("escape", "close", "Back", id="transcript.back"),
        Binding("ctrl+f", "find", "Find", id="transcript.find"),
        Binding("ctrl+n", "find_next(1)", "Next", id="transcript.find_next"),
        Binding("ctrl+u", "find_next(-1)", "Previous match", id="transcript.find_prev", show=False),
        # In the find box (the messages have arrows of their own): ↓ / ↑ next / previous match.
        Binding("down", "find_next(1)", "Next match", id="transcript.find_down", show=False),
        Binding("up", "find_next(-1)", "Previous match", id="transcript.find_up", show=False),
        Binding("ctrl+y", "copy('id')", "Copy id", id="transcript.copy_id"),
        Binding("ctrl+k", "copy('resume')", "Copy resume", id="transcript.copy_resume"),
        Binding("ctrl+e", "resume(False)", "Resume", id="transcript.resume"),
        Binding("ctrl+d", "resume(True)", "Fork…", id="transcript.fork", show=False),
        Binding("ctrl+x", "export", "Export", id="transcript.export"),
        Binding("ctrl+s", "toggle_secrets", "Show secrets", id="transcript.secrets", show=False),
        Binding("ctrl+o", "open_parent", "Parent", id="transcript.parent", show=False),
        Binding("ctrl+g", "handoff", "Hand off to an agent…", id="transcript.handoff", show=False),
        Binding("ctrl+w", "remember", "Remember this message…", id="transcript.remember", show=False),
        Binding("ctrl+v", "range_start", "Start a range to remember", id="transcript.range_start", show=False),
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

    def type_ahead_box(self, focused: Widget | None) -> Input | None:
        """Typing on the messages starts a find with what is typed."""
        if isinstance(focused, MessageList):
            self.add_class("-finding")
            box = self.query_one("#find", Input)
            box.value = ""
            return box
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_parent":
            return self.session.parent_session_id is not None
        return True

    def on_mount(self) -> None:
        messages = self.query_one(MessageList)
        if self.session.parent_session_id:
            messages.user_label = "parent agent"  # a subagent's prompt is its parent's, not yours
        messages.focus()
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
        """API keys, tokens and passwords are masked; ctrl+s shows them (the index keeps them)."""
        messages = self.query_one(MessageList)
        messages.show_secrets(not messages.reveal_secrets)
        self.notify("Secrets shown in full: ctrl+s masks them again." if messages.reveal_secrets
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
        box = self.query_one("#find", Input)
        if box.has_focus and box.value.strip() != messages.needle:
            messages.find(box.value)  # typed, not yet searched
            return
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
                        + Text("  (enter or ↓ / ↑ in the box, ctrl+n / ctrl+u: next / previous)", style="dim"))
        else:
            info.update(Text("no matches for ", style="dim") + log_text(event.needle))
        self.add_class("-found")

    @on(MessageList.Opened)
    def _opened(self, event: MessageList.Opened) -> None:
        """Enter on a tool call: every session that touched its files (a modal); a call that
        touched none expands."""
        m = event.message
        if is_subagent_call(m):
            self.open_subagent(m)
            return
        paths = list(dict.fromkeys(t.path for t in paths_in_call(m.tool_name, m.detail, self.session.project_path)))
        if not paths:
            self.query_one(MessageList).action_toggle_message()
            return

        def chosen(session: Session | None) -> None:
            if session is not None and session.id != self.session.id:
                self.app.push_screen(TranscriptScreen(self.context, session, find=paths[0].rsplit("/", 1)[-1]))

        self.app.push_screen(FileSessionsScreen(self.context, paths, self.session), chosen)

    # -- subagents and their parent ------------------------------------------------------------
    @dataclass
    class Navigate(Message):
        """Open another session's transcript (a subagent, a parent), at ``message_id``."""

        session: Session | None
        message_id: int | None = None
        missing: str = ""

    @work(thread=True, group="navigate", exit_on_error=False)
    def open_subagent(self, call: LogMessage) -> None:
        messages = self.query_one(MessageList).messages
        position = next((i for i, m in enumerate(messages) if m.id == call.id), None)
        found = None if position is None else subagent_of_call(self.context.index, self.session, messages, position)
        self.post_message(self.Navigate(found, missing="The subagent of this call is not in the index."))

    def action_open_parent(self) -> None:
        self.open_parent()

    @work(thread=True, group="navigate", exit_on_error=False)
    def open_parent(self) -> None:
        index = self.context.index
        parent = index.parent(self.session)
        if parent is None:
            self.post_message(self.Navigate(None, missing="This subagent's parent session is not in the index."))
            return
        call = call_of_subagent(index, self.session, parent, index.messages(parent))
        self.post_message(self.Navigate(parent, call.id if call is not None else None))

    def on_transcript_screen_navigate(self, event: Navigate) -> None:
        if event.session is None:
            self.notify(event.missing, severity="warning")
            return
        stack = self.app.screen_stack
        below = stack[-2] if len(stack) > 1 else None
        if isinstance(below, TranscriptScreen) and below.session.id == event.session.id:
            self.dismiss()  # back to the transcript it came from, at the call
            below.query_one(MessageList).go_to_message(event.message_id)
            return
        self.app.push_screen(TranscriptScreen(self.context, event.session, focus_message_id=event.message_id))

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
            self.notify(f"From message {message.ordinal}: ctrl+w remembers up to the current one.", timeout=3)

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

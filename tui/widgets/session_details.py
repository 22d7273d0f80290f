"""Facts about the session under the tree cursor, including its resume command."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from indexer import Session
from indexer.activity import is_active
from tui.display.humanize_time import ago, clock, duration
from tui.display.log_text import log_text
from tui.display.tokens import token_summary


class SessionDetails(VerticalScroll, can_focus=False):
    COMPONENT_CLASSES = {"session-details--key", "session-details--title"}

    def compose(self):
        yield Static(id="session-details-body")

    def show_hint(self, hint: str | Text) -> None:
        text = Text(hint) if isinstance(hint, str) else hint.copy()
        text.stylize("italic")
        self.query_one("#session-details-body", Static).update(text)

    def show(self, session: Session, resume: str, now: float) -> None:
        key_style = self.get_component_rich_style("session-details--key")
        title = log_text(session.title or "(untitled session)", style=self.get_component_rich_style("session-details--title"))
        table = Table.grid(padding=(0, 1))
        table.add_column(style=key_style, no_wrap=True)
        table.add_column(overflow="fold")
        rows = [
            ("agent", session.agent),
            ("project", session.project_path or "?"),
            ("session", session.session_id),
            ("started", f"{clock(session.start_ts)} ({ago(session.start_ts, now)})"),
            ("duration", duration(session.start_ts, session.end_ts) or "?"),
            ("messages", f"{session.message_count:,}"),
            ("tokens", token_summary(session.tokens)),
            ("model", session.model or "?"),
            ("branch", session.git_branch or "?"),
        ]
        if session.parent_session_id:
            rows.append(("subagent of", session.parent_session_id))
        if session.branched_from:
            rows.append(("branched from", session.branched_from))
        if session.archived_only:
            rows.append(("log", "deleted: archived copy only (`threadback restore` brings it back)"))
        elif session.source_missing:
            rows.append(("log", "deleted (messages kept in the index)"))
        elif is_active(session, now):
            rows.append(("log", f"active: last message {ago(session.end_ts, now)}"))
        for key, value in rows:
            table.add_row(key, log_text(value))
        table.add_row("resume", log_text(resume))
        from rich.console import Group

        self.query_one("#session-details-body", Static).update(
            Group(title, Text(""), table, Text("\nenter: transcript · y: copy id · r: copy resume command", style="dim"))
        )

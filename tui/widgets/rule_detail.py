"""One rule shown in full: every hidden or deceptive character made visible and warned about,
where it came from, and its approval state. Rule text is untrusted: never parsed as markup."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from rich.console import Group, RenderableType
from rich.rule import Rule as Divider
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from indexer.text.ages import relative_age
from indexer.rules import APPROVED, ARCHIVED, CHANGED, PENDING, REJECTED, UNVERIFIED, Rule
from indexer.text.safe import describe_suspicious, make_visible, suspicious_characters

_MARKER = re.compile(r"⟨U\+[0-9A-F]{4,6}[^⟩]*⟩")

STATUS_LABELS = {
    PENDING: "pending",
    CHANGED: "changed since approval",
    UNVERIFIED: "approval not verified",
    APPROVED: "approved",
    REJECTED: "rejected",
    ARCHIVED: "archived",
}


def when(ts: float | None, now: float) -> str:
    """``3d ago (2026-06-28 14:03 UTC)``."""
    if ts is None:
        return "at an unknown time"
    stamp = datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"{relative_age(ts, now)} ({stamp})"


def visible_rule_text(text: str, marker_style: Style | str) -> Text:
    """The text with markers for hidden characters, each marker styled so it stands out."""
    shown = Text(make_visible(text))
    for match in _MARKER.finditer(shown.plain):
        shown.stylize(marker_style, match.start(), match.end())
    return shown


def rule_heading(rule: Rule, status: str, *, title_style: Style, warning_style: Style) -> Text:
    """Id, status and title on one line; a status that needs a second look is in the warning style."""
    head = Text()
    head.append(rule.id, style=title_style)
    head.append(f"  {STATUS_LABELS.get(status, status)}",
                style=warning_style if status in (CHANGED, UNVERIFIED) else "bold")
    if rule.title:
        head.append("  ")
        head.append(make_visible(rule.title), style="italic")
    return head


def approval_warnings(rule: Rule, status: str, now: float, *, note: str | None, made: str | None,
                      style: Style) -> list[Text]:
    """Why the approval does not count, or was made away from the login session: read before the text."""
    warnings: list[Text] = []
    if status == CHANGED:
        warnings.append(Text(
            f"⚠ The text changed after it was approved {when(rule.approved_at, now)}"
            f"{' by ' + make_visible(rule.approved_by) if rule.approved_by else ''}: "
            "the approval no longer counts. Review the text below again.",
            style=style,
        ))
    if status == UNVERIFIED:
        warnings.append(Text(f"⚠ Approval not verified: {note or 'it counts as pending.'}",
                             style=style))
    if made:
        warnings.append(Text(f"⚠ {made[0].upper()}{made[1:]}.", style=style))
    return warnings


def proposal_origin(rule: Rule, now: float, *, style: Style) -> Text:
    """When and by whom the rule was proposed, and the session and file it came from."""
    source = Text(style=style)
    source.append(f"Proposed {when(rule.proposed_at, now)}")
    if rule.agent:
        source.append(f" by {make_visible(rule.agent)}")
    if rule.session_id:
        source.append(f"\nSession {make_visible(rule.session_id)}  (o opens its transcript)")
    if rule.source_path:
        source.append(f"\nSource file {make_visible(rule.source_path)}")
    return source


def hidden_characters_report(text: str, *, warning_style: Style, muted_style: Style) -> Text:
    """A warning naming each hidden or deceptive character, or a quiet all-clear."""
    found = suspicious_characters(text)
    if found:
        return Text("⚠ " + describe_suspicious(found), style=warning_style)
    return Text("No hidden or deceptive characters.", style=muted_style)


def rule_text_divider(text: str, *, edited: bool, warning_style: Style, muted_style: Style) -> Divider:
    """The line above the text: its size, or, for an edit, how to approve exactly that."""
    lines = text.count("\n") + 1
    if not edited:
        label = f"Full text · {len(text):,} characters · {lines} line{'s' * (lines != 1)}"
    else:
        label = "Your edit · press ctrl+y to approve exactly this text, escape to drop it"
    return Divider(Text(label, style=warning_style if edited else muted_style),
                   align="left", style=muted_style)


def decision_line(rule: Rule, status: str, now: float, *, style: Style) -> Text | None:
    """Who approved (and the hash approved) or who rejected or archived, and when; None if undecided."""
    if status in (APPROVED, CHANGED) and rule.approved_sha256:
        return Text(
            f"Approved {when(rule.approved_at, now)}"
            f" by {make_visible(rule.approved_by or 'unknown')}"
            f" · sha256 {rule.approved_sha256[:16]}…",
            style=style,
        )
    if status in (REJECTED, ARCHIVED):
        return Text(
            f"{STATUS_LABELS[status].capitalize()} {when(rule.decided_at, now)}"
            f" by {make_visible(rule.decided_by or 'unknown')} · ctrl+u sends it back to pending",
            style=style,
        )
    return None


class RuleDetail(VerticalScroll):
    """The selected rule, or the edited text waiting for a second ``y``."""

    COMPONENT_CLASSES = {
        "rule-detail--warning",
        "rule-detail--marker",
        "rule-detail--muted",
        "rule-detail--title",
    }
    DEFAULT_CSS = """
    RuleDetail > .rule-detail--warning { color: $warning; text-style: bold; }
    RuleDetail > .rule-detail--marker { color: $error; text-style: bold reverse; }
    RuleDetail > .rule-detail--muted { color: $text-muted; }
    RuleDetail > .rule-detail--title { color: $accent; text-style: bold; }
    RuleDetail > #rule-detail-text { height: auto; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="rule-detail-text")

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"rule-detail--{name}")

    def show_nothing(self, message: str) -> None:
        text = Text(message, style=self._style("muted"))
        self.query_one("#rule-detail-text", Static).update(text)

    def show_rule(self, rule: Rule, now: float, *, edited_text: str | None = None,
                  note: str | None = None, made: str | None = None) -> None:
        """``note``: why an approval is not verified (``RuleStore.verification_note``); ``made``:
        an approval made detached from the login session (``RuleStore.origin_note``)."""
        warning, muted, title = self._style("warning"), self._style("muted"), self._style("title")
        status = rule.effective_status
        parts: list[RenderableType] = [rule_heading(rule, status, title_style=title, warning_style=warning)]
        parts.extend(approval_warnings(rule, status, now, note=note, made=made, style=warning))
        parts.append(proposal_origin(rule, now, style=muted))

        text = rule.text if edited_text is None else edited_text
        parts.append(hidden_characters_report(text, warning_style=warning, muted_style=muted))
        parts.append(rule_text_divider(text, edited=edited_text is not None, warning_style=warning,
                                       muted_style=muted))
        parts.append(visible_rule_text(text, self._style("marker")))
        parts.append(Divider(style=muted))

        decision = decision_line(rule, status, now, style=muted)
        if decision is not None:
            parts.append(decision)
        self.query_one("#rule-detail-text", Static).update(Group(*parts))
        self.scroll_home(animate=False)

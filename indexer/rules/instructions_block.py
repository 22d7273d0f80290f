"""Approved rules as a block for CLAUDE.md / AGENTS.md, or as JSON for scripts.

The caller passes only rules whose approval still matches their text; these functions only
format, so nothing here can let an unapproved rule through by accident of formatting. What they
write goes to agents and terminals: every invisible or deceptive character is shown as a marker
and secrets are masked (``textsafe.make_safe``); the JSON also writes any such character left
as a ``\\uXXXX`` escape.
"""

from __future__ import annotations

import json

from indexer.rules.model import Rule, format_ts
from indexer.text.safe import escape_json_specials, make_safe

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from typing import Sequence

MARKDOWN_HEADING = "## Rules approved in Threadback"
EXPORT_FORMATS = ("markdown", "json")


def rules_to_markdown(rules: Sequence[Rule], *, heading: str = MARKDOWN_HEADING) -> str:
    """A heading and one bullet per rule; later lines of a rule are indented under its bullet."""
    out = [heading, ""]
    for rule in rules:
        lines = make_safe(rule.text.strip()).split("\n")
        out.append(f"- {lines[0]}")
        out.extend(f"  {line}" if line.strip() else "" for line in lines[1:])
    return "\n".join(out) + "\n"


def rules_to_json(rules: Sequence[Rule]) -> str:
    items = [
        {
            "id": rule.id,
            "text": make_safe(rule.text),
            "sha256": rule.approved_sha256,
            "approved_at": format_ts(rule.approved_at) if rule.approved_at is not None else None,
            "approved_by": rule.approved_by and make_safe(rule.approved_by),
            "agent": rule.agent and make_safe(rule.agent),
            "session_id": rule.session_id and make_safe(rule.session_id),
            "source_path": rule.source_path and make_safe(rule.source_path),
        }
        for rule in rules
    ]
    return escape_json_specials(json.dumps(items, ensure_ascii=False, indent=2)) + "\n"

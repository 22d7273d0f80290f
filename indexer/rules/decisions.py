"""The append-only decision log, ``rules-decisions.jsonl``: who did what to which text, when."""

from __future__ import annotations

from pathlib import Path

from indexer.util.named_record import NamedTuple
from indexer.util.quick_json import loads
from indexer.rules.model import Rule, format_ts, parse_ts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def default_actor() -> str:
    """The OS user name: who approved, rejected or undid something."""
    try:
        import getpass  # on first use: only a decision being written names its actor

        return getpass.getuser()
    except Exception:  # no USER variable and no passwd entry (some containers)
        return "unknown"

ACTIONS = ("propose", "approve", "reject", "edit", "undo", "archive")
_CORE_KEYS = ("ts", "action", "rule", "actor", "sha256")


class Decision(NamedTuple):
    """One line of the decision log."""

    ts: float
    action: str  # one of ACTIONS
    rule_id: str
    actor: str
    sha256: str | None  # of the rule's text after the decision
    details: dict[str, Any]  # e.g. previous_status, previous_sha256, via


def decision_entry(
    action: str, rule: Rule, actor: str, now: float, **details: Any
) -> dict[str, Any]:
    return {
        "ts": format_ts(now),
        "action": action,
        "rule": rule.id,
        "actor": actor,
        "sha256": rule.sha256,
        **details,
    }


def read_decisions(path: Path, rule_id: str | None = None) -> list[Decision]:
    """Logged decisions, oldest first (only ``rule_id``'s when given); bad lines are skipped."""
    try:
        raw = Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    found = []
    for line in raw.split("\n"):
        try:
            obj = loads(line)
        except ValueError:
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("rule"), str):
            continue
        if rule_id is not None and obj["rule"] != rule_id:
            continue
        sha = obj.get("sha256")
        found.append(
            Decision(
                ts=parse_ts(obj.get("ts")) or 0.0,
                action=str(obj.get("action")),
                rule_id=obj["rule"],
                actor=str(obj.get("actor")),
                sha256=sha if isinstance(sha, str) else None,
                details={k: v for k, v in obj.items() if k not in _CORE_KEYS},
            )
        )
    return found

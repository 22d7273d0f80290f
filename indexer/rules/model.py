"""What a rule is, how its approval is bound to its exact text, and how one is stored as a line."""

from __future__ import annotations

from datetime import datetime, timezone

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.util.digest import sha256_hex
from indexer.util.frozen_record import frozen_record, not_compared, replace
from indexer.util.named_record import NamedTuple
from indexer.text.safe import is_special

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

PENDING = "pending"
APPROVED = "approved"
REJECTED = "rejected"
ARCHIVED = "archived"
STATUSES = (PENDING, APPROVED, REJECTED, ARCHIVED)
# Not stored: an approved rule whose text no longer matches the approved hash.
CHANGED = "changed"
# Not stored: marked approved, but without a MAC this user's key verifies (``signing``).
UNVERIFIED = "unverified"
EFFECTIVE_STATUSES = (PENDING, CHANGED, UNVERIFIED, APPROVED, REJECTED, ARCHIVED)
STATUS_LABELS = {CHANGED: "changed since approval", UNVERIFIED: "approval not verified"}

MAX_RULE_CHARS = 20_000


class RuleError(ValueError, ThreadbackError):
    """A rule operation that cannot be done, with a message fit to show the user."""
    kind = errors.USAGE


class RuleNotFoundError(RuleError, LookupError):
    kind = errors.NOT_FOUND
    pass


class RuleStateError(RuleError):
    """The operation does not apply to the rule's current status (e.g. undo a pending rule)."""
    kind = errors.REFUSED


class TextChangedError(RuleError):
    """The stored text is not the text the person was shown: approving would approve unseen text."""


def text_sha256(text: str) -> str:
    """Hex SHA-256 of the UTF-8 bytes of ``text``: what an approval is bound to."""
    return sha256_hex(text.encode("utf-8", "surrogatepass"))


@frozen_record
class Rule:
    id: str
    text: str
    status: str  # as stored; see ``effective_status``
    proposed_at: float
    agent: str | None = None
    session_id: str | None = None
    source_path: str | None = None
    title: str | None = None
    source_sha256: str | None = None  # hash of the imported file, for idempotent import
    approved_sha256: str | None = None
    approval_mac: str | None = None  # HMAC of (id, approved hash) with this user's key
    approved_at: float | None = None
    approved_by: str | None = None
    decided_at: float | None = None  # reject / archive
    decided_by: str | None = None
    extra: Mapping[str, Any] = not_compared(factory=dict)  # unknown fields
    # Not stored: whether ``approval_mac`` checked out with this user's key when loaded. False
    # for any Rule built without the store's check, so an unchecked approval never counts.
    approval_verified: bool = not_compared(default=False)

    @property
    def sha256(self) -> str:
        return text_sha256(self.text)

    @property
    def effective_status(self) -> str:
        """The stored status, except that an approval of some other text counts for nothing,
        and one this user's key does not verify counts as pending."""
        if self.status == APPROVED:
            if self.approved_sha256 != self.sha256:
                return CHANGED
            return APPROVED if self.approval_verified else UNVERIFIED
        if self.status in STATUSES:
            return self.status
        return PENDING  # an unknown status written by hand: make a person look at it

    @property
    def needs_review(self) -> bool:
        return self.effective_status in (PENDING, CHANGED, UNVERIFIED)

    @property
    def is_valid_approval(self) -> bool:
        return self.effective_status == APPROVED

    @property
    def status_label(self) -> str:
        """``approval not verified``, ``changed since approval``, or the status itself."""
        status = self.effective_status
        return STATUS_LABELS.get(status, status)

    @property
    def first_line(self) -> str:
        return self.text.strip().split("\n", 1)[0]


# --- one rule per line --------------------------------------------------------------------

_KNOWN_FIELDS = (
    "id",
    "text",
    "status",
    "proposed_at",
    "agent",
    "session_id",
    "source_path",
    "title",
    "source_sha256",
    "approved_sha256",
    "approval_mac",
    "approved_at",
    "approved_by",
    "decided_at",
    "decided_by",
)
_TIME_FIELDS = ("proposed_at", "approved_at", "decided_at")
_TEXT_FIELDS = tuple(f for f in _KNOWN_FIELDS if f not in _TIME_FIELDS)


def clean_rule_text(text: str) -> str:
    """The text as it will be stored; raises ``RuleError`` for an empty or huge text."""
    text = text.strip()
    if not text:
        raise RuleError("a rule needs some text")
    if len(text) > MAX_RULE_CHARS:
        raise RuleError(f"a rule is limited to {MAX_RULE_CHARS:,} characters")
    return text


class ProposeResult(NamedTuple):
    rule: Rule  # the new pending rule, or the existing rule it nearly duplicates
    created: bool


def new_rule_id(text: str, now: float, source: str | None, *, taken: set[str]) -> str:
    """``r-`` and 8 hex digits from the rule's text, time and source, not in ``taken``."""
    salt = 0
    while True:
        seed = f"{now!r}\0{source or ''}\0{salt}\0{text}".encode("utf-8", "surrogatepass")
        rule_id = "r-" + sha256_hex(seed)[:8]
        if rule_id not in taken:
            return rule_id
        salt += 1


# --- a rule's state changes (each a new Rule; the store writes it and logs the decision) ---------


def approved_as(rule: Rule, shown_text: str, approver: str, now: float, mac: str) -> Rule:
    """``rule`` approved, bound to the hash of the text the person was shown, with the MAC
    (``signing.ApprovalSigner.mac``) of that hash."""
    return replace(
        rule,
        status=APPROVED,
        approved_sha256=text_sha256(shown_text),
        approval_mac=mac,
        approval_verified=True,
        approved_at=float(now),
        approved_by=approver,
        decided_at=None,
        decided_by=None,
    )


def decided_as(rule: Rule, status: str, actor: str, now: float) -> Rule:
    """``rule`` rejected or archived: any approval is dropped."""
    return replace(
        rule,
        status=status,
        approved_sha256=None,
        approval_mac=None,
        approval_verified=False,
        approved_at=None,
        approved_by=None,
        decided_at=float(now),
        decided_by=actor,
    )


def back_to_pending(rule: Rule) -> Rule:
    """``rule`` with its decision undone: pending, no approval, no decision."""
    return replace(
        rule,
        status=PENDING,
        approved_sha256=None,
        approval_mac=None,
        approval_verified=False,
        approved_at=None,
        approved_by=None,
        decided_at=None,
        decided_by=None,
    )


def format_ts(ts: float) -> str:
    """UTC ISO 8601 to the second: readable in the plain-text file."""
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_ts(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value:
        try:
            dt = datetime.fromisoformat(value)
        except ValueError:
            return None
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        return dt.timestamp()
    return None


def rule_from_json(obj: object) -> Rule | None:
    """A ``Rule`` from one parsed line, or ``None`` when the line is not a rule we understand."""
    if not isinstance(obj, dict):
        return None
    if not isinstance(obj.get("id"), str) or not isinstance(obj.get("text"), str):
        return None
    values: dict[str, Any] = {}
    for name in _TEXT_FIELDS:
        value = obj.get(name)
        if value is not None and not isinstance(value, str):
            return None
        values[name] = value
    for name in _TIME_FIELDS:
        values[name] = parse_ts(obj.get(name))
    values["status"] = values["status"] or PENDING
    values["proposed_at"] = values["proposed_at"] or 0.0
    extra = {k: v for k, v in obj.items() if k not in _KNOWN_FIELDS}
    return Rule(**values, extra=extra)


def rule_to_json(rule: Rule) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _KNOWN_FIELDS:
        value = getattr(rule, name)
        if value is None:
            continue
        out[name] = format_ts(value) if name in _TIME_FIELDS else value
    for key, value in rule.extra.items():
        out.setdefault(key, value)
    return out


def encode_line(obj: Mapping[str, Any]) -> str:
    """One JSON line, readable (non-ASCII kept) but with every invisible or deceptive
    character written as a ``\\uXXXX`` escape, so opening the file in an editor shows them."""
    import json  # writing only: a session start reads rules without it

    line = json.dumps(obj, ensure_ascii=False)
    if line.isascii():
        return line
    return "".join(_json_escape(ch) if is_special(ch) else ch for ch in line)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

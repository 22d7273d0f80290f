"""The pending-rule store: ``rules.jsonl`` in the memory folder plus an append-only decision log.

Agents may only propose. Approval takes the text the person was shown and is refused unless
that is exactly the stored text and the file has not changed on disk since it was loaded; the
approval records the SHA-256 of that text, so any later change to the text voids it, and a MAC
of (rule id, that hash) with this user's key (``indexer.rules.signing``), so an approval that
a file merely claims is "approval not verified" and counts as pending.
"""

from __future__ import annotations

from pathlib import Path

from indexer.util.fileio import FileStamp, append_line, atomic_write_bytes, check_unchanged
from indexer.util.frozen_record import replace
from indexer.util.quick_json import loads
from indexer.rules.decisions import Decision, decision_entry, default_actor, read_decisions
from indexer.rules.model import (
    ARCHIVED, EFFECTIVE_STATUSES, PENDING, ProposeResult, REJECTED, Rule, RuleError, RuleNotFoundError,
    RuleStateError, TextChangedError, UNVERIFIED, approved_as, back_to_pending, clean_rule_text, decided_as,
    encode_line, new_rule_id, rule_from_json, rule_to_json, text_sha256,
)
from indexer.rules.signing import ApprovalKeyError, ApprovalSigner, UnlockedKey, load_signer, unlocked_key
from indexer.sources import CLAUDE_CODE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any, Sequence

    from indexer.rules.claude_notes import ImportReport

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; the on-disk change check still applies
    fcntl = None  # type: ignore[assignment]  # the module, absent on Windows

class ApprovalLocked(RuleError):
    """No approval key is unlocked in this process: the person has not typed the passphrase."""


RULES_FILE = "rules.jsonl"
DECISIONS_FILE = "rules-decisions.jsonl"
LOCK_FILE = ".rules.lock"


class RuleStore:
    """Rules in ``<memory_dir>/rules.jsonl``, loaded on construction and on ``reload``.

    Lines that are not rules, and fields we do not know, are kept as they are; a rule's line
    is rewritten only when that rule changes.
    """

    def __init__(self, memory_dir: Path, *, key_path: Path | None = None) -> None:
        self.memory_dir = Path(memory_dir)
        self._key_path = key_path  # default: the data dir's (``signing.key_path``)
        self.key_problem: str | None = None  # why approvals cannot be checked, if they cannot
        self.path = self.memory_dir / RULES_FILE
        self.decisions_path = self.memory_dir / DECISIONS_FILE
        self._lines: list[str] = []
        self._rules: dict[str, Rule] = {}
        self._line_of: dict[str, int] = {}
        self._stamp: FileStamp | None = None
        self._lock_depth = 0
        self.reload()

    # --- reading ---------------------------------------------------------------------------

    def reload(self) -> None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            self._lines, self._rules, self._line_of = [], {}, {}
            self._stamp = FileStamp.of(self.path)
            return
        self._stamp = FileStamp.of_bytes(self.path, data)
        lines = data.decode("utf-8", "surrogateescape").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        rules: dict[str, Rule] = {}
        line_of: dict[str, int] = {}
        signer = self._signer(create=False)
        for number, line in enumerate(lines):
            try:
                rule = rule_from_json(loads(line))
            except ValueError:
                rule = None
            if rule is not None and rule.approval_mac:
                ok = signer.verify(rule.id, rule.approved_sha256, rule.approval_mac)
                rule = replace(rule, approval_verified=ok)
            # A repeated id is kept as an unknown line: the first one is the rule.
            if rule is not None and rule.id not in rules:
                rules[rule.id] = rule
                line_of[rule.id] = number
        self._lines, self._rules, self._line_of = lines, rules, line_of

    def _signer(self, *, create: bool) -> ApprovalSigner:
        """This user's approval key; with ``create`` it is made on first use. A key that cannot
        be trusted verifies nothing (``key_problem`` says why) and signs nothing."""
        try:
            signer = load_signer(create=create, memory_dir=self.memory_dir, path=self._key_path)
        except ApprovalKeyError as exc:
            self.key_problem = str(exc)
            if create:
                raise RuleError(f"cannot approve: {exc}") from None
            return ApprovalSigner()
        self.key_problem = None
        return signer

    def _unlocked(self) -> UnlockedKey:
        """The key the person unlocked with their passphrase in this process; approving needs it."""
        self._signer(create=True)  # a key file that cannot be trusted, or inside the memory folder
        key = unlocked_key(self._key_path)
        if key is None:
            raise ApprovalLocked("approving needs your approval passphrase, typed in this review "
                                 "(`threadback rules review`, or the app's review pane)")
        return key

    def is_stale(self) -> bool:
        """Whether the file changed on disk since it was loaded or last written by us."""
        current = FileStamp.of(self.path)
        return self._stamp is None or (current.exists, current.sha256) != (
            self._stamp.exists,
            self._stamp.sha256,
        )

    def all(self) -> list[Rule]:
        """Every rule, in file order."""
        return list(self._rules.values())

    def rules(self, status: str = "all") -> list[Rule]:
        """Rules by effective status; ``pending`` includes rules changed since approval."""
        if status == "all":
            return self.all()
        if status == PENDING:
            return self.pending()
        if status not in EFFECTIVE_STATUSES:
            raise RuleError(f"unknown status {status!r}; use all, {', '.join(EFFECTIVE_STATUSES)}")
        return [r for r in self._rules.values() if r.effective_status == status]

    def pending(self) -> list[Rule]:
        """Rules waiting for a person: pending, and approved but changed since approval."""
        return [r for r in self._rules.values() if r.needs_review]

    def approved(self) -> list[Rule]:
        """Approved rules whose text still matches the approved hash: the only ones exported."""
        return [r for r in self._rules.values() if r.is_valid_approval]

    def get(self, rule_id: str) -> Rule:
        try:
            return self._rules[rule_id]
        except KeyError:
            raise RuleNotFoundError(f"no rule {rule_id}") from None

    def resolve(self, id_or_prefix: str) -> Rule:
        """A rule by full id or unique prefix (``r-1a2b`` or ``1a2b``), for typed commands."""
        if id_or_prefix in self._rules:
            return self._rules[id_or_prefix]
        wanted = id_or_prefix if id_or_prefix.startswith("r-") else "r-" + id_or_prefix
        matches = [r for r in self._rules.values() if r.id.startswith(wanted)]
        if len(matches) == 1 and len(wanted) > len("r-"):
            return matches[0]
        if len(matches) > 1 and len(wanted) > len("r-"):
            raise RuleError(f"{id_or_prefix} matches {len(matches)} rules; give more of the id")
        raise RuleNotFoundError(f"no rule {id_or_prefix}")

    def find_near_duplicate(self, text: str) -> Rule | None:
        """An existing rule (any status) with the same or nearly the same text."""
        from indexer.rules.similarity import find_near_duplicate  # proposing only: not on reading

        return find_near_duplicate(text, ((r, r.text) for r in self._rules.values()))

    def history(self, rule_id: str) -> list[Decision]:
        """Every logged decision about one rule, oldest first."""
        return read_decisions(self.decisions_path, rule_id)

    def verification_note(self, rule: Rule) -> str | None:
        """Why an approval counts for nothing, for a person deciding what to do about it.

        The decision log lives in the same folder, so it can be forged too: it explains, it
        never approves."""
        if rule.effective_status != UNVERIFIED:
            return None
        if self.key_problem:
            return f"approvals cannot be checked: {self.key_problem}"
        logged = [d for d in self.history(rule.id) if d.action == "approve" and d.sha256 == rule.sha256]
        if not rule.approval_mac:
            where = "an older Threadback, or an edit to rules.jsonl outside Threadback"
        elif rule.approval_mac.startswith("v1:"):
            where = ("an older Threadback, whose key file any program running as you could read "
                     "(approvals now need your passphrase)")
        elif logged:
            where = "another user or machine (its key is not this one), or a copied rules file"
        else:
            where = "an edit to rules.jsonl outside Threadback (the decision log has no such approval)"
        return (f"marked approved, but not with this user's approval key: it came from {where}. "
                "It counts as pending until you approve it again.")

    def origin_note(self, rule: Rule) -> str | None:
        """A warning when ``rule``'s approval was made detached from the person's login session
        (inside tmux or screen, on a pty of ``script``, after ``setsid``, without a terminal), as
        the decision log recorded it. The log can be forged like any file: it informs, it
        never approves."""
        if not rule.approved_sha256:
            return None
        from indexer.rules.origin import origin_warning

        made = [d for d in self.history(rule.id) if d.action == "approve" and d.sha256 == rule.approved_sha256]
        return origin_warning(made[-1].details.get("how")) if made else None

    def export(self, format: str = "markdown") -> str:
        """The approved rules (hash still matching) as Markdown for CLAUDE.md, or JSON."""
        from indexer.rules.instructions_block import EXPORT_FORMATS, rules_to_json, rules_to_markdown  # not read at start

        if format not in EXPORT_FORMATS:
            raise RuleError(f"unknown export format {format!r}; use markdown or json")
        rules = self.approved()
        return rules_to_markdown(rules) if format == "markdown" else rules_to_json(rules)

    # --- proposing (anyone, including agents) ---------------------------------------------

    def propose(
        self,
        text: str,
        *,
        now: float,
        agent: str | None = None,
        session_id: str | None = None,
        source_path: str | None = None,
        title: str | None = None,
        actor: str | None = None,
    ) -> ProposeResult:
        """Store ``text`` as a pending rule, or return the existing near-duplicate untouched.

        Never approves. A proposal does not depend on anything a person was shown, so a store
        that is out of date is reloaded first rather than refusing.
        """
        text = clean_rule_text(text)
        with self._locked():
            if self.is_stale():
                self.reload()
            existing = self.find_near_duplicate(text)
            if existing is not None:
                return ProposeResult(existing, created=False)
            rule = Rule(
                id=new_rule_id(text, now, source_path, taken=set(self._rules)),
                text=text,
                status=PENDING,
                proposed_at=float(now),
                agent=agent,
                session_id=session_id,
                source_path=source_path,
                title=title,
            )
            who = actor or agent or "unknown"
            self._commit([rule], [decision_entry("propose", rule, who, now)])
        return ProposeResult(rule, created=True)

    def import_claude_notes(self, projects_root: Path, *, now: float) -> ImportReport:
        """Propose each Claude Code auto-memory note once per (file path, file content)."""
        from indexer.rules.claude_notes import plan_import  # a session start reads rules, imports none

        with self._locked():
            if self.is_stale():
                self.reload()
            report = plan_import(projects_root, self.all(), now)
            if report.proposed:
                decisions = [
                    decision_entry("propose", r, CLAUDE_CODE, now, via="import") for r in report.proposed
                ]
                self._commit(list(report.proposed), decisions)
        return report

    # --- decisions (a person) ---------------------------------------------------------------

    def approve(
        self, rule_id: str, shown_text: str, *, now: float, approver: str | None = None,
        how: dict[str, Any] | None = None,
    ) -> Rule:
        """Approve exactly ``shown_text``. Refused (``TextChangedError``) if the stored text is
        not ``shown_text``, (``ChangedOnDiskError``) if the file changed since loading, and
        (``ApprovalLocked``) unless the person unlocked their approval key in this process."""
        return self.approve_many([(rule_id, shown_text)], now=now, approver=approver, how=how)[0]

    def approve_many(
        self, items: Sequence[tuple[str, str]], *, now: float, approver: str | None = None,
        how: dict[str, Any] | None = None,
    ) -> list[Rule]:
        """Approve several (rule id, shown text) pairs: all of them, or none if any is refused.
        ``how``: how the approval was made (``indexer.rules.origin``; default: this process)."""
        if not items:
            return []
        approver = approver or default_actor()
        ids = [rule_id for rule_id, _ in items]
        if len(set(ids)) != len(ids):
            raise RuleError("the same rule is listed twice")
        key = self._unlocked()
        how = _origin() if how is None else how
        approved = []
        for rule_id, shown_text in items:
            rule = self._reviewable(rule_id, shown_text)
            mac = key.mac(rule.id, text_sha256(shown_text))
            approved.append(approved_as(rule, shown_text, approver, now, mac))
        decisions = [decision_entry("approve", r, approver, now, how=how) for r in approved]
        self._commit(approved, decisions)
        return approved

    def edit_and_approve(
        self,
        rule_id: str,
        shown_text: str,
        new_text: str,
        *,
        now: float,
        approver: str | None = None,
        how: dict[str, Any] | None = None,
    ) -> Rule:
        """Replace the text the person was shown by their edit, and approve the edit."""
        approver = approver or default_actor()
        rule = self._reviewable(rule_id, shown_text)
        new_text = clean_rule_text(new_text)
        mac = self._unlocked().mac(rule.id, text_sha256(new_text))
        edited = approved_as(replace(rule, text=new_text), new_text, approver, now, mac)
        how = _origin() if how is None else how
        decisions = [
            decision_entry("edit", edited, approver, now, previous_sha256=rule.sha256),
            decision_entry("approve", edited, approver, now, how=how),
        ]
        self._commit([edited], decisions)
        return edited

    def reject(self, rule_id: str, *, now: float, actor: str | None = None) -> Rule:
        return self._decide(rule_id, REJECTED, "reject", now, actor)

    def archive(self, rule_id: str, *, now: float, actor: str | None = None) -> Rule:
        return self._decide(rule_id, ARCHIVED, "archive", now, actor)

    def undo(self, rule_id: str, *, now: float, actor: str | None = None) -> Rule:
        """Send an approved, rejected or archived rule back to pending."""
        actor = actor or default_actor()
        rule = self.get(rule_id)
        if rule.status == PENDING:
            raise RuleStateError(f"{rule_id} is already pending; nothing to undo")
        pending = back_to_pending(rule)
        decision = decision_entry(
            "undo", pending, actor, now, previous_status=rule.effective_status
        )
        self._commit([pending], [decision])
        return pending

    # --- internals --------------------------------------------------------------------------

    def _reviewable(self, rule_id: str, shown_text: str) -> Rule:
        rule = self.get(rule_id)
        if rule.text != shown_text:
            raise TextChangedError(
                f"{rule_id} was changed after it was shown; nothing was approved. Review it again."
            )
        if not rule.needs_review:
            raise RuleStateError(
                f"{rule_id} is {rule.effective_status}; only pending rules can be approved "
                "(undo the decision first)"
            )
        return rule

    def _decide(
        self, rule_id: str, status: str, action: str, now: float, actor: str | None
    ) -> Rule:
        actor = actor or default_actor()
        rule = self.get(rule_id)
        if rule.status == status:
            raise RuleStateError(f"{rule_id} is already {status}")
        decided = decided_as(rule, status, actor, now)
        decision = decision_entry(
            action, decided, actor, now, previous_status=rule.effective_status
        )
        self._commit([decided], [decision])
        return decided

    def _locked(self) -> _StoreLock:
        """Serialise read-check-write between processes, so a concurrent writer is detected
        as a change on disk instead of being silently overwritten."""
        return _StoreLock(self)

    def _commit(self, changed: Sequence[Rule], decisions: Sequence[dict[str, Any]]) -> None:
        """Write the changed rules (one atomic replace), then log the decisions."""
        with self._locked():
            check_unchanged(self.path, self._stamp)  # before anything is computed or written
            lines = list(self._lines)
            line_of = dict(self._line_of)
            for rule in changed:
                line = encode_line(rule_to_json(rule))
                if rule.id in line_of:
                    lines[line_of[rule.id]] = line
                else:
                    line_of[rule.id] = len(lines)
                    lines.append(line)
            data = "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")
            before = self._stamp.sha256 if self._stamp is not None and self._stamp.exists else None
            # ``expect``: an editor's save landing meanwhile is swapped back, never overwritten
            # (and then the allow is not carried forward: the file is not ours).
            self._stamp = atomic_write_bytes(self.path, data, expect=self._stamp)
            from indexer.memory.trust import carry_allow_forward  # writing only: reading rules never needs it

            carry_allow_forward(self.memory_dir, RULES_FILE, before, self._stamp.sha256)
            self._lines, self._line_of = lines, line_of
            for rule in changed:
                self._rules[rule.id] = rule
            for decision in decisions:
                append_line(self.decisions_path, encode_line(decision))


class _StoreLock:
    """``RuleStore._locked()``: the folder's lock file, taken once however deeply nested. A
    class, not ``@contextmanager``: a session start loads this module, ``contextlib`` ~0.5 ms."""

    def __init__(self, store: RuleStore) -> None:
        self.store = store
        self.handle: IO[str] | None = None

    def __enter__(self) -> None:
        store = self.store
        if not store._lock_depth and fcntl is not None:
            store.memory_dir.mkdir(parents=True, exist_ok=True)
            self.handle = handle = open(store.memory_dir / LOCK_FILE, "a")  # noqa: SIM115 - closed in __exit__
            try:
                fcntl.flock(handle, fcntl.LOCK_EX)
            except BaseException:
                handle.close()
                raise
        store._lock_depth += 1

    def __exit__(self, *exc_info: object) -> None:
        self.store._lock_depth -= 1
        if self.handle is not None:
            with self.handle:
                fcntl.flock(self.handle, fcntl.LOCK_UN)


def _origin() -> dict[str, Any]:
    from indexer.rules.origin import approval_origin  # psutil's walk: only when approving

    return approval_origin()

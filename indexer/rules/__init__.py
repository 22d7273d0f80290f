"""Pending rules: agents propose, a person approves exactly the text they were shown.

    store = RuleStore(memory_dir)
    store.propose(text, now=..., agent="codex")  # always pending
    for rule in store.pending(): ...             # includes "changed since approval"
    store.approve(rule.id, rule.text, now=...)   # hash-bound and signed with the user's key
    store.export("markdown")                     # only valid approvals
"""

from indexer.rules.claude_notes import ClaudeNote, ImportReport, SkippedNote, claude_projects_root
from indexer.rules.decisions import Decision, default_actor
from indexer.rules.export import EXPORT_FORMATS, MARKDOWN_HEADING
from indexer.rules.model import (
    APPROVED,
    ARCHIVED,
    CHANGED,
    EFFECTIVE_STATUSES,
    MAX_RULE_CHARS,
    PENDING,
    ProposeResult,
    REJECTED,
    STATUS_LABELS,
    STATUSES,
    UNVERIFIED,
    Rule,
    RuleError,
    RuleNotFoundError,
    RuleStateError,
    TextChangedError,
    clean_rule_text,
    text_sha256,
)
from indexer.rules.signing import ApprovalKeyError, ApprovalSigner, key_path, load_signer
from indexer.rules.similarity import NEAR_DUPLICATE_RATIO, normalise
from indexer.rules.store import DECISIONS_FILE, RULES_FILE, RuleStore

__all__ = [
    "APPROVED",
    "ARCHIVED",
    "CHANGED",
    "DECISIONS_FILE",
    "EFFECTIVE_STATUSES",
    "EXPORT_FORMATS",
    "MARKDOWN_HEADING",
    "MAX_RULE_CHARS",
    "NEAR_DUPLICATE_RATIO",
    "PENDING",
    "REJECTED",
    "RULES_FILE",
    "STATUSES",
    "STATUS_LABELS",
    "UNVERIFIED",
    "ApprovalKeyError",
    "ApprovalSigner",
    "key_path",
    "load_signer",
    "ClaudeNote",
    "Decision",
    "ImportReport",
    "ProposeResult",
    "Rule",
    "RuleError",
    "RuleNotFoundError",
    "RuleStateError",
    "RuleStore",
    "SkippedNote",
    "TextChangedError",
    "clean_rule_text",
    "claude_projects_root",
    "default_actor",
    "normalise",
    "text_sha256",
]

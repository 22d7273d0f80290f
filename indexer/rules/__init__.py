"""Pending rules: agents propose, a person approves exactly the text they were shown.

    store = RuleStore(memory_dir)
    store.propose(text, now=..., agent="codex")  # always pending
    for rule in store.pending(): ...             # includes "changed since approval"
    store.approve(rule.id, rule.text, now=...)   # hash-bound and signed with the user's key
    store.export("markdown")                     # only valid approvals
"""

from indexer import lazy_names

# Each name is imported from its module on first use: a session start reads a few files and
# loads only the modules that read them (every one at once was ~5 ms of each session start).
_WHERE = {
    "ClaudeNote": "indexer.rules.claude_notes",
    "ImportReport": "indexer.rules.claude_notes",
    "SkippedNote": "indexer.rules.claude_notes",
    "claude_projects_root": "indexer.rules.claude_notes",
    "Decision": "indexer.rules.decisions",
    "default_actor": "indexer.rules.decisions",
    "EXPORT_FORMATS": "indexer.rules.instructions_block",
    "MARKDOWN_HEADING": "indexer.rules.instructions_block",
    "APPROVED": "indexer.rules.model",
    "ARCHIVED": "indexer.rules.model",
    "CHANGED": "indexer.rules.model",
    "EFFECTIVE_STATUSES": "indexer.rules.model",
    "MAX_RULE_CHARS": "indexer.rules.model",
    "PENDING": "indexer.rules.model",
    "ProposeResult": "indexer.rules.model",
    "REJECTED": "indexer.rules.model",
    "STATUS_LABELS": "indexer.rules.model",
    "STATUSES": "indexer.rules.model",
    "UNVERIFIED": "indexer.rules.model",
    "Rule": "indexer.rules.model",
    "RuleError": "indexer.rules.model",
    "RuleNotFoundError": "indexer.rules.model",
    "RuleStateError": "indexer.rules.model",
    "TextChangedError": "indexer.rules.model",
    "clean_rule_text": "indexer.rules.model",
    "text_sha256": "indexer.rules.model",
    "ApprovalKeyError": "indexer.rules.signing",
    "ApprovalSigner": "indexer.rules.signing",
    "key_path": "indexer.rules.signing",
    "load_signer": "indexer.rules.signing",
    "NEAR_DUPLICATE_RATIO": "indexer.rules.similarity",
    "normalise": "indexer.rules.similarity",
    "DECISIONS_FILE": "indexer.rules.store",
    "RULES_FILE": "indexer.rules.store",
    "RuleStore": "indexer.rules.store",
}


__getattr__, __dir__ = lazy_names(__name__, globals(), _WHERE)


TYPE_CHECKING = False
if TYPE_CHECKING:  # what type checkers and editors see
    from indexer.rules.claude_notes import ClaudeNote, ImportReport, SkippedNote, claude_projects_root
    from indexer.rules.decisions import Decision, default_actor
    from indexer.rules.instructions_block import EXPORT_FORMATS, MARKDOWN_HEADING
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

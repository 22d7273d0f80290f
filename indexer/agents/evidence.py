"""The evidence gate: a prompt with no trigger phrase that names a specific error ("why does
pytest fail with ModuleNotFoundError: No module named tomlkit") earns a "you have been here"
reminder when past sessions hold the same error with the same details.

Deliberately narrow, so it costs nothing on ordinary prompts and rarely speaks out of turn:
- the artifact must be an error identifier: an exception or error class (``TypeError``,
  ``ModuleNotFoundError``, ``PermissionDenied``), an errno name (``EADDRINUSE``) or an error
  code (``TS2339``, ``E0432``, ``ORA-00942``); a file name alone is everyday talk, not evidence;
- the prompt must report it as something that happened (``TypeError: …``, "fails with",
  "getting", 报错, エラー), not specify it ("raise ValueError when the input is negative");
- a past message must hold the artifact *and* the prompt's most specific other word (the module,
  the port, the file), under the relevance bar (``indexer.agents.relevance``): "TypeError"
  alone proves nothing, nor does the same error about another module.
"""

from __future__ import annotations

import re

from indexer.agents.recall import extract_terms
from indexer.util.named_record import NamedTuple

MAX_PROMPT_CHARS = 4000  # a longer prompt is mostly a paste: its error is read from its start
_ERROR_IDENTIFIER = re.compile(
    r"\b(?:[A-Z][a-z0-9]+){1,4}(?:Error|Exception|Denied|Timeout|Refused|NotFound|Failure)\b"  # class names
    r"|\bE[A-Z]{4,}\b"  # errno names: ENOENT, EADDRINUSE, ECONNREFUSED
    r"|\b(?:[A-Z]{1,4}\d{3,5}|[A-Z]{2,5}-\d{3,5})\b"  # codes: TS2339, E0432, ORA-00942
)
# Capitalised words that look like an error class but are prose.
_NOT_ERRORS = frozenset({"Error", "Exception", "NotFound", "Timeout", "Failure"})
# The prompt reports an error that happened ("fails with X", "X: message", 报错), rather than
# specifying one ("raise ValueError when…").
_HAPPENED = re.compile(
    r"\b(?:fail(?:s|ed|ing)?|crash(?:es|ed|ing)?|broke(?:n)?|got|getting|gets|keeps?|still|again|"
    r"traceback|stack ?trace|error(?:s|ed)?|exception|thrown|complains?|says)\b|报错|報錯|错误|錯誤|出错|出錯|エラー|失敗|落ちる",
    re.IGNORECASE)


class Evidence(NamedTuple):
    """The error a prompt names and the words to search past sessions for: the error, then its
    most specific companion (both required), then up to two more."""

    artifact: str
    terms: tuple[str, ...]

    @property
    def required(self) -> tuple[str, ...]:
        return self.terms[:2]


def _specificity(term: str) -> tuple[bool, int]:
    """Code-shaped words (``src/app.tsx``, ``3000``, ``foo_bar``) first, then longer ones."""
    return (bool(re.search(r"[_./:#@\d-]|[a-z][A-Z]", term)), len(term))


def find_evidence(prompt: str) -> Evidence | None:
    """The first error identifier in ``prompt`` and the search words around it, or None when
    the prompt names no error or gives nothing to pair it with."""
    if not isinstance(prompt, str):
        return None
    head = prompt[:MAX_PROMPT_CHARS]
    found = next((m for m in _ERROR_IDENTIFIER.finditer(head) if m.group(0) not in _NOT_ERRORS), None)
    if found is None:
        return None
    artifact = found.group(0)
    reported = head[found.end():found.end() + 1] == ":" or _HAPPENED.search(head.replace(artifact, " "))
    if not reported:
        return None
    others = [t for t in extract_terms(head) if t.lower() != artifact.lower()]
    if not others:
        return None
    companion = max(others, key=_specificity)
    return Evidence(artifact, (artifact, companion, *[t for t in others if t != companion][:2]))

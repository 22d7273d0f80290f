"""One parser module per agent, and the registry that finds their logs.

Each module offers ``default_roots()``, ``is_log_file(file_name)``, ``init_meta(path, meta)`` and
``parse(path, data, first_line_no, state, meta) -> ParseOutput``; a module may add
``is_whole_document(path)`` for formats that are rewritten whole rather than appended to.
A parse sets ``ParseOutput.restart`` when appended lines change what earlier ones mean; the
file is then read again from the start. Any JSON value may sit in any field: parsers read
fields through ``indexer.sources.fields`` and never raise (see docs/formats.md).
"""

from __future__ import annotations

from types import ModuleType

from indexer.sources import claude_code, codex, pi

PARSERS: dict[str, ModuleType] = {
    claude_code.AGENT: claude_code,
    codex.AGENT: codex,
    pi.AGENT: pi,
}


def is_whole_document(agent: str, path) -> bool:
    check = getattr(PARSERS[agent], "is_whole_document", None)
    return bool(check and check(path))

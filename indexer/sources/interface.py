"""The typed interface every agent's parser module fulfils (``indexer.sources.AGENTS`` names
the module). A module is checked against it structurally (tests/core/sources/test_agent_registry.py); it is
never imported on the search path, so ``typing`` costs nothing there."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from indexer.sources.base import ParseOutput, SessionMeta


@runtime_checkable
class AgentParser(Protocol):
    """What the indexer calls, and when.

    - ``default_roots()``: the agent's log folders on this machine, from its environment
      variables (the registry's ``home_env``) or its default home. Called on every index run.
    - ``is_log_file(name)``: by file name alone, for every file under a root: keep it cheap.
    - ``init_meta(path, meta)``: what the path alone says (the session id in the file name).
    - ``parse(path, data, first_line_no, state, meta)``: the complete lines of ``data`` (the
      whole file, or what was appended since the last run when the registry's ``reading`` is
      "lines"); ``state`` is a JSON-able dict kept between runs; ``meta`` is filled in. Never
      raises: an odd value costs that value, an odd line that line (``ParseOutput.bad_lines``).
      Set ``ParseOutput.restart`` when appended lines change what earlier ones mean.
    - ``is_whole_document(path)`` (optional): this file is rewritten whole (read it whole).
    - ``with_store_mirrors(roots, mirrors, problems)`` (optional), for an agent that keeps its
      sessions in a store of its own rather than one log file each (opencode's SQLite file): at
      the start of a full run, bring a mirror of one file per session up to date under
      ``mirrors`` and return ``roots`` plus the mirror's folders (``indexer.sources.opencode_db``).
    - ``STORE_FILES`` (optional): names of that store's files, which are not logs (no warning).
    """

    def default_roots(self) -> list[Path]: ...

    def is_log_file(self, name: str) -> bool: ...

    def init_meta(self, path: Path, meta: SessionMeta) -> None: ...

    def parse(self, path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput: ...

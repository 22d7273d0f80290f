"""Appending one line to an append-only log (usage, decisions, retrievals).

Its own module, apart from ``indexer.util.fileio``'s atomic writes (hashing, temp files): a search
and a hook append a usage line and should load nothing more for it (``os.path``, not
``pathlib``, which costs them ~4 ms with ``urllib.parse`` and ``ipaddress``).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def append_line(path: str | Path, line: str) -> None:
    """Append one line to an append-only log (usage, decisions, retrievals).

    A single ``write`` of a line under PIPE_BUF-ish size with O_APPEND does not interleave
    with other writers, so no lock is needed for these logs.
    """
    folder = os.path.dirname(os.path.normpath(path))
    if folder:
        os.makedirs(folder, exist_ok=True)
    if "\n" in line:
        raise ValueError("a log line cannot contain a newline")
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")

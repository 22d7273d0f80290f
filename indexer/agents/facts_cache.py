"""The session-start hook's fact lines, kept from one session start to the next.

Reading fact.yml takes the YAML library (ruamel.yaml, ~10 ms to load) and a parse, on every
session start, though the file seldom changes. The lines the hook made from it are kept in
``<data dir>/cache/session-facts.json`` with the exact text they were made from; a session start
whose fact.yml holds that very text (compared in full, not by a stamp or a hash) reuses them.
The code that makes the lines is part of the key too (the size and modification time of its
files), so a new version never shows lines an older one made. Anything wrong with the cache (missing, unreadable,
damaged, another version) means it is made again; it is only ever replaced whole (a temporary
file, then a rename), and a failed write costs nothing but the next start's time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from indexer.config import data_dir

CACHE_FILE = "session-facts.json"
FORMAT = 1
MAX_FOLDERS = 16  # memory folders remembered (one per project with its own memory)
# The modules whose code turns fact.yml into the hook's lines (relative to ``indexer``).
_MAKERS = ("agents/context.py", "agents/facts_cache.py", "memory/facts.py", "memory/fact_record.py",
           "memory/yaml_bounds.py")


def cache_path() -> Path:
    return data_dir() / "cache" / CACHE_FILE


def cached_lines(fact_path: Path) -> tuple[str, ...] | None:
    """The lines made last time from exactly the text ``fact_path`` holds now, or None."""
    try:
        data = Path(fact_path).read_bytes()
        entry = _read().get(str(fact_path))
    except (OSError, ValueError):
        return None
    # The text as the fact file reads it (``indexer.memory.facts``): bytes that are not UTF-8
    # as surrogate escapes.
    if not isinstance(entry, dict) or entry.get("text") != data.decode("utf-8", "surrogateescape"):
        return None
    lines = entry.get("lines")
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        return None
    return tuple(lines)


def remember_lines(fact_path: Path, text: str, lines: tuple[str, ...]) -> None:
    """Keep ``lines``, made from ``text`` (fact.yml's text as parsed), for the next start."""
    try:
        folders = _read()
    except (OSError, ValueError):
        folders = {}
    folders.pop(str(fact_path), None)
    folders[str(fact_path)] = {"text": text, "lines": list(lines)}
    while len(folders) > MAX_FOLDERS:
        folders.pop(next(iter(folders)))  # the least recently written
    code = _code_stamp()
    if code is None:
        return
    path = cache_path()
    temporary = path.with_name(f".{CACHE_FILE}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"format": FORMAT, "code": code, "folders": folders}, ensure_ascii=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(payload)
        os.replace(temporary, path)
    except OSError:
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass


def _read() -> dict:
    """The remembered folders, if the cache was written by this code; else {}."""
    try:
        raw = cache_path().read_text(encoding="utf-8")  # ASCII (written with ensure_ascii); the codec is loaded
    except FileNotFoundError:
        return {}
    doc = json.loads(raw)
    code = _code_stamp()
    if code is None or not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("code") != code:
        return {}
    folders = doc.get("folders")
    return folders if isinstance(folders, dict) else {}


def _code_stamp() -> list[list[int]] | None:
    """Size and modification time of each file of the code that makes the lines; None when
    one cannot be read (then nothing is cached: which code wrote an entry could not be told)."""
    package = Path(__file__).resolve().parents[1]
    stamp = []
    for name in _MAKERS:
        try:
            st = os.stat(package / name)
        except OSError:
            return None
        stamp.append([st.st_size, st.st_mtime_ns])
    return stamp

"""The session-start hook's fact lines, kept from one session start to the next.

Reading fact.yml takes the YAML library (ruamel.yaml, ~10 ms to load) and a parse, on every
session start, though the file seldom changes. The lines the hook made from it are kept in
``<data dir>/cache/session-facts.json`` with the exact text they were made from; a session start
whose fact.yml holds that very text (compared in full, not by a stamp or a hash) reuses them.
The code that makes the lines is part of the key too (the size and modification time of its
files): a new version never shows lines an older one made, and each keeps its own entries.
Anything wrong with the cache (missing, unreadable, damaged, another format) means the lines
are made again; the file is only ever replaced whole (a temporary file, then a rename), and a
failed write costs nothing but the next start's time.
"""

from __future__ import annotations

import os
from pathlib import Path

from indexer.config import data_dir
from indexer.util.quick_json import loads

CACHE_FILE = "session-facts.json"
FORMAT = 1
MAX_FOLDERS = 16  # memory folders remembered (one per project with its own memory)
MAX_VERSIONS = 4  # versions of the code whose entries are kept
# The modules whose code turns fact.yml into the hook's lines (relative to ``indexer``).
_MAKERS = ("agents/context.py", "agents/facts_cache.py", "memory/facts.py", "memory/yaml_bounds.py")


def cache_path() -> Path:
    return data_dir() / "cache" / CACHE_FILE


def cached_lines(fact_path: Path) -> tuple[str, ...] | None:
    """The lines made last time from exactly the text ``fact_path`` holds now, or None."""
    code = _code_key()
    if code is None:
        return None
    try:
        data = Path(fact_path).read_bytes()
        entry = _read().get(code, {}).get(str(fact_path))
    except (OSError, ValueError, AttributeError):
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
    """Keep ``lines``, made from ``text`` (fact.yml's text as parsed), for the next start.
    Each version of the code keeps its own entries (two installs sharing a data folder do not
    undo each other's)."""
    code = _code_key()
    if code is None:
        return
    try:
        codes = _read()
    except (OSError, ValueError):
        codes = {}
    folders = codes.pop(code, None)
    folders = folders if isinstance(folders, dict) else {}
    folders.pop(str(fact_path), None)
    folders[str(fact_path)] = {"text": text, "lines": list(lines)}
    while len(folders) > MAX_FOLDERS:
        folders.pop(next(iter(folders)))  # the least recently written
    codes[code] = folders
    while len(codes) > MAX_VERSIONS:
        codes.pop(next(iter(codes)))
    path = cache_path()
    temporary = path.with_name(f".{CACHE_FILE}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        import json  # writing only

        payload = json.dumps({"format": FORMAT, "codes": codes}, ensure_ascii=True)
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
    """The entries by version of the code (``_code_key``), then by fact.yml path; {} when the
    file is missing or of another format."""
    try:
        raw = cache_path().read_text(encoding="utf-8")  # ASCII (written with ensure_ascii); the codec is loaded
    except FileNotFoundError:
        return {}
    doc = loads(raw)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("codes"), dict):
        return {}
    return doc["codes"]


def _code_key() -> str | None:
    stamp = _code_stamp()
    return None if stamp is None else " ".join(f"{size}:{mtime}" for size, mtime in stamp)


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

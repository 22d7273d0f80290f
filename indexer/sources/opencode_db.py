"""opencode's SQLite store (``opencode.db``, newer versions): every session in one file.

The index tracks one log file per session, so each session of the database is written out
(mirrored) as one JSON document in the shape ``indexer.sources.opencode`` reads: the session's
fields, with its messages and their parts inside (``MESSAGES_KEY``). A mirror file is written
again only when its session changed (its ``time_updated``, its messages' newest
``time_updated`` and their count), with an atomic replace, so an unchanged session costs one
row of a query and its file is left as it was: the index's usual stamps then skip it. A session
gone from the database loses its mirror file, and the index marks it missing (the archive keeps
the copy). The database is opened read-only through a ``mode=ro`` URI: opencode keeps it in WAL
mode and may be writing; nothing here takes a write lock or changes a byte of it.

The schema is opencode's drizzle schema (``packages/opencode/src/session/session.sql.ts``):
``session(id, project_id, parent_id, directory, title, time_created, time_updated, ...)``,
``message(id, session_id, time_created, time_updated, data)`` and
``part(id, message_id, session_id, time_created, time_updated, data)``, ``data`` holding the JSON
that the file store kept per message and part (without their ids). Times are epoch milliseconds.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from indexer.util.fileio import atomic_write_bytes

DB_NAME = "opencode.db"
MESSAGES_KEY = "threadback:messages"  # the messages (each with its "parts") inside a mirror file
_STAMPS = "stamps.json"
BUSY_TIMEOUT_S = 2.0  # opencode writes in short transactions; a run waits this long at most


def database_for(root: Path) -> Path | None:
    """The ``opencode.db`` that belongs with an opencode log folder: beside ``storage/`` for the
    default ``<home>/storage/session``, or in the folder itself when a person names the home."""
    candidates = [root / DB_NAME]
    if root.name == "session" and root.parent.name == "storage":
        candidates.insert(0, root.parent.parent / DB_NAME)
    return next((c for c in candidates if c.is_file()), None)


def mirror_folder(mirrors: Path, db: Path) -> Path:
    """The mirror of one database (one per database, so two opencode homes never mix); the
    sessions are under its ``storage/session/db/``, where the opencode parser looks for them."""
    key = hashlib.sha256(str(db.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return mirrors / "opencode" / key


def sessions_folder(mirror: Path) -> Path:
    return mirror / "storage" / "session" / "db"


def mirror_database(db: Path, mirror: Path) -> tuple[int, list[str]]:
    """Bring ``mirror`` up to date with ``db``: (sessions written, problems). Never raises: a
    database that cannot be read is one problem line, and its mirror is left as it was."""
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error as exc:
        return 0, [f"{db}: cannot open opencode's database ({exc}); its sessions were not read"]
    try:
        return _mirror(conn, db, mirror)
    except (sqlite3.Error, OSError, ValueError) as exc:
        return 0, [f"{db}: cannot read opencode's database ({' '.join(str(exc).split())}); "
                   "its sessions were left as last read"]
    finally:
        conn.close()


def _mirror(conn: sqlite3.Connection, db: Path, mirror: Path) -> tuple[int, list[str]]:
    stamps_file = mirror / _STAMPS
    old = _read_stamps(stamps_file)
    rows = conn.execute(
        "SELECT s.id, s.parent_id, s.directory, s.title, s.time_created, s.time_updated,"
        " (SELECT max(m.time_updated) FROM message m WHERE m.session_id = s.id),"
        " (SELECT count(*) FROM message m WHERE m.session_id = s.id)"
        " FROM session s").fetchall()
    folder = sessions_folder(mirror)
    folder.mkdir(parents=True, exist_ok=True)
    stamps: dict[str, list] = {}
    written = 0
    problems: list[str] = []
    for sid, parent, directory, title, created, updated, newest, count in rows:
        if not isinstance(sid, str) or not sid or "/" in sid or sid.startswith("."):
            problems.append(f"{db}: a session with an unusable id ({sid!r}) was skipped")
            continue
        stamp = [updated, newest, count]
        stamps[sid] = stamp
        target = folder / f"{sid}.json"
        if old.get(sid) == stamp and target.exists():
            continue
        document = {"id": sid, "parentID": parent, "directory": directory, "title": title,
                    "time": {"created": created, "updated": updated},
                    MESSAGES_KEY: _messages(conn, sid)}
        try:
            atomic_write_bytes(target, json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass"),
                               backup=False)
        except (OSError, ValueError) as exc:  # a name the file system refuses: that session alone
            problems.append(f"{db}: session {sid!r} could not be mirrored ({exc}); it was left as last read")
            if sid in old:
                stamps[sid] = old[sid]  # its last mirror stays, and the next run tries again
            else:
                stamps.pop(sid)
            continue
        written += 1
    for gone in set(old) - set(stamps):
        try:
            (folder / f"{gone}.json").unlink()
        except FileNotFoundError:
            pass
    atomic_write_bytes(stamps_file, json.dumps(stamps).encode(), backup=False)
    return written, problems


def _messages(conn: sqlite3.Connection, sid: str) -> list[dict]:
    """A session's messages in id order (opencode's ids sort by creation), each with its parts."""
    parts: dict[str, list[dict]] = {}
    for pid, mid, data in conn.execute("SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id",
                                       (sid,)):
        part = _object(data)
        part.setdefault("id", pid)
        parts.setdefault(mid, []).append(part)
    messages = []
    for mid, data in conn.execute("SELECT id, data FROM message WHERE session_id = ? ORDER BY id", (sid,)):
        message = _object(data)
        message.setdefault("id", mid)
        message["parts"] = parts.get(mid, [])
        messages.append(message)
    return messages


def _object(data: object) -> dict:
    """A ``data`` column as a JSON object; anything else (damaged, not JSON) as an empty one,
    which the parser reads as a message or part with nothing in it."""
    if isinstance(data, bytes):
        data = data.decode("utf-8", "replace")
    try:
        value = json.loads(data) if isinstance(data, str) else None
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _read_stamps(path: Path) -> dict[str, list]:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def with_database_mirrors(opencode_roots: tuple[Path, ...], mirrors: Path,
                          problems: list[str]) -> tuple[Path, ...]:
    """``opencode_roots`` plus the mirror of each ``opencode.db`` that belongs with one of them,
    brought up to date first."""
    extra: list[Path] = []
    for root in opencode_roots:
        db = database_for(root)
        if db is None:
            continue
        mirror = mirror_folder(mirrors, db)
        _, found = mirror_database(db, mirror)
        problems.extend(found)
        folder = sessions_folder(mirror)
        if folder.is_dir() and folder not in extra:
            extra.append(folder)
    return (*opencode_roots, *extra) if extra else opencode_roots


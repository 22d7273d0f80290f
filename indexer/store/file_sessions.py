"""Sessions that touched a file (``threadback files``, the app's per-file view, ``file:``)."""

from __future__ import annotations

import posixpath
import sqlite3

from indexer.models import FileTouches
from indexer.store.rows import sessions_by_rowid

MAX_SESSIONS = 500


def _like_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def path_condition(wanted: str, column: str = "path", name_column: str = "name") -> tuple[str, list]:
    """SQL for "this path, or any path ending with it at a folder boundary" (``src/app.py``
    finds ``/w/x/src/app.py``), starting from the indexed last part of the path."""
    wanted = wanted.strip().rstrip("/")
    name = wanted.rsplit("/", 1)[-1]
    return (f"({name_column} = ? AND ({column} = ? OR {column} LIKE ? ESCAPE '\\'))",
            [name, wanted, "%/" + _like_escape(wanted.lstrip("/"))])


def touches_of_file(conn: sqlite3.Connection, path: str, cwd: str | None = None,
                    limit: int = MAX_SESSIONS) -> list[FileTouches]:
    """Sessions that touched ``path``, newest first. A relative ``path`` is first taken against
    ``cwd`` (an exact match); when nothing touched that, it is a suffix (``src/app.py``)."""
    wanted = path.strip()
    if not wanted:
        return []
    if wanted.startswith("/"):
        absolute = posixpath.normpath(wanted)
        return _query(conn, absolute, True, limit) or _query(conn, absolute, False, limit)
    if cwd:
        found = _query(conn, posixpath.normpath(posixpath.join(cwd, wanted)), True, limit)
        if found:
            return found
    suffix = posixpath.normpath(wanted)
    while suffix.startswith("../"):
        suffix = suffix[3:]
    return _query(conn, suffix, False, limit) if suffix not in (".", "..") else []


def _query(conn: sqlite3.Connection, wanted: str, exact: bool, limit: int) -> list[FileTouches]:
    if exact:
        where, params = "path = ?", [wanted]
    else:
        where, params = path_condition(wanted)
    rows = conn.execute(
        f"SELECT session_rowid, path, group_concat(DISTINCT kind) AS kinds, sum(calls) AS n, max(ts) AS last"
        f" FROM files_touched WHERE {where} GROUP BY session_rowid, path ORDER BY last DESC NULLS LAST LIMIT ?",
        [*params, limit],
    ).fetchall()
    sessions = sessions_by_rowid(conn, {r[0] for r in rows})
    order = {"read": 0, "edit": 1, "write": 2, "delete": 3, "shell": 4}
    return [FileTouches(sessions[r[0]], r[1], tuple(sorted(set(r[2].split(",")), key=lambda k: order.get(k, 9))),
                        r[3], r[4])
            for r in rows if r[0] in sessions]


"""Which files a session wrote have changed since it ended: the one line ("these files changed
since: ...") the prompt hook adds under recalled sessions, and the app shows beside a cited
memory. Light on purpose (``os`` and one query): the prompt hook runs it within its budget.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from indexer.index import Index
    from indexer.models import Session

CHANGED_SLACK_S = 2.0  # a file written by the session's last call has its mtime a moment after


def files_changed_since(index: Index, session: Session, *, limit: int = 20) -> list[str]:
    """Files the session edited or wrote that are different now from when it ended (changed
    after, or gone), by their modification time; nothing when its folder is not on this machine."""
    end = session.end_ts or session.start_ts
    folder = session.resume_cwd or session.project_path
    if end is None or not folder or not os.path.isdir(folder):
        return []  # a session from another machine, or a project since removed: nothing to compare
    rows = index.conn.execute(
        "SELECT DISTINCT path FROM files_touched WHERE session_rowid = ? AND kind IN ('edit', 'write')"
        " ORDER BY path", (session.id,)).fetchall()
    changed = []
    for (path,) in rows:
        try:
            if os.stat(path).st_mtime > end + CHANGED_SLACK_S:
                changed.append(path)
        except OSError:
            changed.append(path)  # gone, or unreadable: not as the session left it
        if len(changed) >= limit:
            break
    return changed


def changed_line(paths: list[str], *, limit: int = 5) -> str | None:
    """The one line the context and the app show, or None when nothing changed."""
    if not paths:
        return None
    shown = ", ".join(paths[:limit]) + (f" (+{len(paths) - limit} more)" if len(paths) > limit else "")
    return f"these files changed since: {shown}"

"""Telling what is wrong with an index file truthfully, from the error SQLite or the OS gave.

"database disk image is malformed" is real damage only if SQLite's own check says so: the
same words come from a page a search could not read, while a full disk, read-only media or a
lock held by another program are no damage at all, and following "run --rebuild" there would
delete a good index. So on a database error we run ``PRAGMA quick_check`` on each file: only a
failed check is called damage (and only damage to the main file asks for ``--rebuild``: the
next index run rebuilds a damaged side file from the main one).

What a sound open calls (``is_read_only_place``) works on ``str`` paths with ``os.path``:
``pathlib`` (~4 ms with ``urllib.parse`` and ``ipaddress``) is loaded only to name a problem.
"""

from __future__ import annotations

import errno
import os
import sqlite3

from indexer.store.errors import (
    IndexCorruptError,
    IndexError_,
    IndexFullError,
    IndexLockedError,
    IndexReadOnlyError,
    IndexSideDamagedError,
    IndexUnavailableError,
)
from indexer.store.file_uri import path_uri
from indexer.store.side_file import side_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)


def side_damage_marker(main_path: str | Path) -> Path:
    """A file beside the index saying a reader found the side file damaged: the next index run
    rebuilds the side file (readers cannot)."""
    from pathlib import Path

    return Path(str(main_path) + ".side-damaged")


def damage_marker(main_path: str | Path) -> Path:
    """A file beside the index saying a reader found the main file damaged: the next index run
    checks it (a run with nothing new would not read the damaged pages) and says so."""
    from pathlib import Path

    return Path(str(main_path) + ".damaged")


def quick_check(path: str | Path) -> str | None:
    """None when SQLite finds ``path`` sound, else what it found (one line)."""
    try:
        conn = sqlite3.connect(f"{path_uri(path)}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        conn.execute("PRAGMA busy_timeout = 2000")
        rows = conn.execute("PRAGMA quick_check(1)").fetchall()
        result = rows[0][0] if rows else "no answer"
        return None if result == "ok" else " ".join(str(result).replace("***", " ").split())
    except sqlite3.OperationalError as exc:
        text = str(exc).lower()
        if "locked" in text or "busy" in text or "unable to open" in text or "readonly" in text:
            return None  # cannot check now: not evidence of damage
        return str(exc)
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        conn.close()


def diagnose(path: str | Path, exc: BaseException) -> IndexError_:
    """The user-facing error for ``exc``, raised while using the index at ``path``."""
    from pathlib import Path

    path = Path(path)
    if isinstance(exc, IndexError_):
        return exc
    if isinstance(exc, OSError):
        return _os_error(path, exc)
    text = str(exc).lower()
    if path.is_dir():
        return IndexUnavailableError(path, "it is a folder, not an index file; give --db a file path")
    if "locked" in text or "busy" in text:
        return IndexLockedError(path)
    if "readonly" in text or "read-only" in text:
        return IndexReadOnlyError(path, str(exc))
    if "full" in text or _disk_full(path):
        return IndexFullError(path, str(exc))
    if "unable to open" in text or "cannot open" in text:
        return _cannot_open(path, str(exc))
    if "disk i/o error" in text and not _writable(path):
        return IndexReadOnlyError(path, str(exc))
    damage = quick_check(path)
    if damage is not None:
        _touch(damage_marker(path), damage)
        return IndexCorruptError(path, damage)
    side = side_path(path)
    if side.exists() and (side_damage := quick_check(side)) is not None:
        _touch(side_damage_marker(path), side_damage)
        return IndexSideDamagedError(path, side_damage)
    return IndexError_(f"cannot use the index at {path}: {exc} (its files check out sound; try again)")


def _os_error(path: Path, exc: OSError) -> IndexError_:
    if exc.errno in _FULL:
        return IndexFullError(path, exc.strerror or str(exc))
    if exc.errno in _READ_ONLY:
        return IndexReadOnlyError(path, exc.strerror or str(exc))
    if exc.errno in (errno.EISDIR, errno.ENOTDIR):
        where = exc.filename or path
        return IndexUnavailableError(path, f"{where} is a folder where a file belongs (or the other way round)")
    return IndexUnavailableError(path, exc.strerror or str(exc))


def _cannot_open(path: Path, detail: str) -> IndexError_:
    folder = path.parent
    if not folder.exists():
        return IndexUnavailableError(path, f"its folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return IndexReadOnlyError(path, detail)
    return IndexUnavailableError(path, detail)


def parent_folder(path: str | Path) -> str:
    """The folder ``path`` is in, as ``Path(path).parent`` names it (``.`` for a bare name)."""
    return os.path.dirname(os.path.normpath(path)) or "."


def _writable(path: str | Path) -> bool:
    target = path if os.path.exists(path) else parent_folder(path)
    return os.access(target, os.W_OK) and not _read_only_mount(target)


def _read_only_mount(path: str | Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _disk_full(path: Path) -> bool:
    try:
        st = os.statvfs(path.parent if not path.exists() else path)
    except OSError:
        return False
    return st.f_bavail == 0


def is_read_only_place(path: str | Path) -> bool:
    """The index (or the folder it would be in) cannot be written: read-only media or rights."""
    return not _writable(path)


def _touch(marker: Path, detail: str) -> None:
    """Leave the marker, holding what SQLite's check found (readers repeat it)."""
    try:
        marker.write_text(detail[:_MARKER_CHARS] + "\n", encoding="utf-8", errors="replace")
    except OSError:
        pass  # read-only: the index run that would act on it cannot run there either


_MARKER_CHARS = 300


def found_damaged(path: str) -> IndexError_ | None:
    """The damage an earlier run or search found in this index and no index run has cleared
    since, or None. A reader cannot tell from the pages it happens to read: a search whose
    hits come from sound pages, a listing of sessions, would answer as if nothing were missing.
    Two failed opens when all is well (``str`` paths: no ``pathlib`` on a search's way)."""
    for suffix, error in ((".damaged", IndexCorruptError), (".side-damaged", IndexSideDamagedError)):
        try:
            with open(path + suffix, encoding="utf-8", errors="replace") as marker:
                detail = marker.read(_MARKER_CHARS).strip()
        except FileNotFoundError:
            continue
        except OSError:
            detail = ""
        return error(path, detail or "found by an earlier index run or search")
    return None

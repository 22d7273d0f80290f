"""Writing the user's files safely: atomic replace, a backup of the previous version, and
detection of changes made on disk since we read a file."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path


class ChangedOnDiskError(RuntimeError):
    """The file changed on disk since it was loaded; writing now would lose someone's edit."""

    def __init__(self, path: Path):
        super().__init__(
            f"{path} was changed by another program since it was loaded; reload it and try again"
        )
        self.path = path


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What a file looked like when we read it: enough to notice any later change."""

    exists: bool
    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of(cls, path: Path) -> "FileStamp":
        try:
            data = path.read_bytes()
            st = path.stat()
        except FileNotFoundError:
            return cls(False, 0, 0, "")
        return cls(True, st.st_size, st.st_mtime_ns, hashlib.sha256(data).hexdigest())

    @classmethod
    def of_bytes(cls, path: Path, data: bytes) -> "FileStamp":
        st = path.stat()
        return cls(True, st.st_size, st.st_mtime_ns, hashlib.sha256(data).hexdigest())


def check_unchanged(path: Path, stamp: FileStamp | None) -> None:
    """Raise ``ChangedOnDiskError`` when ``path`` no longer matches ``stamp``.

    Compares content hashes, not only mtimes, so a touch without change is not a conflict
    and a same-second edit is still caught.
    """
    if stamp is None:
        return
    current = FileStamp.of(path)
    if current.exists != stamp.exists or current.sha256 != stamp.sha256:
        raise ChangedOnDiskError(path)


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def atomic_write_text(path: Path, text: str, *, backup: bool = True) -> FileStamp:
    """Write ``text`` to ``path`` via a temp file in the same folder and ``os.replace``.

    The previous version, if any, is kept as ``<name>.bak``. Returns the new file's stamp so
    the caller can detect the next outside change.
    """
    return atomic_write_bytes(path, text.encode("utf-8"), backup=backup)


def atomic_write_bytes(path: Path, data: bytes, *, backup: bool = True) -> FileStamp:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if backup and path.exists():
        shutil.copy2(path, backup_path(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return FileStamp.of_bytes(path, data)


def append_line(path: Path, line: str) -> None:
    """Append one line to an append-only log (usage, decisions, retrievals).

    A single ``write`` of a line under PIPE_BUF-ish size with O_APPEND does not interleave
    with other writers, so no lock is needed for these logs.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if "\n" in line:
        raise ValueError("a log line cannot contain a newline")
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")

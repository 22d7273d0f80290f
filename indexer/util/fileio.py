"""Writing the user's files safely: atomic replace, a backup of the previous version, and
detection of changes made on disk since we read a file.

A write that must not lose an outside change (``expect``) swaps the new file in with Linux's
``renameat2(RENAME_EXCHANGE)`` and then looks at what it swapped out: if that is not what was
loaded (an editor saved in between), it swaps it straight back and refuses. The old version
then becomes the ``.bak`` by a rename, so a full disk never leaves a half-written backup.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from pathlib import Path

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.util.append_log import append_line  # noqa: F401 - its home is indexer.util.append_log; kept here for importers
from indexer.util.digest import sha256_hex
from indexer.util.named_record import NamedTuple


class ChangedOnDiskError(RuntimeError, ThreadbackError):
    """The file changed on disk since it was loaded; writing now would lose someone's edit."""
    kind = errors.BUSY

    def __init__(self, path: Path):
        super().__init__(
            f"{path} was changed by another program since it was loaded; reload it and try again"
        )
        self.path = path


class FileStamp(NamedTuple):
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
        return cls(True, st.st_size, st.st_mtime_ns, sha256_hex(data))

    @classmethod
    def of_bytes(cls, path: Path, data: bytes) -> "FileStamp":
        st = path.stat()
        return cls(True, st.st_size, st.st_mtime_ns, sha256_hex(data))


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


def remove_if_present(path: str | Path) -> None:
    """Remove a temp file a failed write left behind (it may never have been created)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def atomic_write_text(path: Path, text: str, *, backup: bool = True, expect: FileStamp | None = None) -> FileStamp:
    """Write ``text`` to ``path`` via a temp file in the same folder and an atomic rename.

    The previous version, if any, is kept as ``<name>.bak``. Returns the new file's stamp so
    the caller can detect the next outside change. Text that came from a file decoded with
    ``surrogateescape`` gets its undecodable bytes back as they were (``encode_exact``).
    """
    return atomic_write_bytes(path, encode_exact(text), backup=backup, expect=expect)


def encode_exact(text: str) -> bytes:
    """UTF-8, with ``surrogateescape`` bytes written back as the bytes they were; any other lone
    surrogate (typed, or from a JSON escape) becomes U+FFFD."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        fixed = "".join("\ufffd" if "\ud800" <= c <= "\udfff" and not "\udc80" <= c <= "\udcff" else c for c in text)
        return fixed.encode("utf-8", "surrogateescape")


def atomic_write_bytes(path: Path, data: bytes, *, backup: bool = True, expect: FileStamp | None = None) -> FileStamp:
    """Replace ``path`` by ``data`` atomically. With ``expect`` (the file as it was loaded),
    raise ``ChangedOnDiskError`` instead of replacing anything else (see the module doc)."""
    path = _through_link(Path(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    if expect is not None:
        check_unchanged(path, expect)
    import shutil  # writing only: reading memory (every session start) loads neither
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    # Files are told apart by inode below. The file system hands a freed inode to the next new
    # file at once, so each file compared is held open until the swap is settled: an editor's
    # next save can then never carry the number of a file it replaced.
    held: list[int] = []
    try:
        with os.fdopen(os.dup(fd), "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        held.append(fd)
        ours = os.fstat(fd).st_ino
        if path.exists():
            shutil.copymode(path, tmp)
        if expect is not None and not expect.exists:
            _create_new(tmp, path)
        elif expect is not None:
            verified = _verified_inode(path, expect, held)  # again, just before the swap
            if os.lstat(path).st_ino != verified:  # one syscall from the swap: replaced since?
                raise ChangedOnDiskError(path)
            if _exchange(tmp, path):
                _keep_swapped_out(tmp, path, verified, ours, backup)
            else:
                if backup and path.exists():
                    _backup(path)
                os.replace(tmp, path)
        else:
            if backup and path.exists():
                _backup(path)
            os.replace(tmp, path)
    except BaseException:
        remove_if_present(tmp)
        raise
    finally:
        if not held:
            os.close(fd)
        for handle in held:
            os.close(handle)
    return FileStamp.of_bytes(path, data)


def _through_link(path: Path) -> Path:
    """Where a write to ``path`` lands. A symbolic link to a file in the same folder (a memory
    folder may hold one) is written through, so the link stays as an editor keeps it. A link
    leading anywhere else is replaced by the new file, the link itself kept as the ``.bak``:
    never written through, so a cloned repository's link cannot make us write outside it."""
    try:
        if not path.is_symlink():
            return path
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):  # dangling, a loop: the link itself is replaced
        return path
    return target if target.parent == path.parent.resolve() and target.is_file() else path


def _create_new(tmp: str, path: Path) -> None:
    """Put ``tmp`` at ``path`` only if nothing is there (someone may have created it meanwhile)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise ChangedOnDiskError(path) from None
    os.unlink(tmp)


def _verified_inode(path: Path, expect: FileStamp, held: list[int]) -> int:
    """The inode now at ``path``, after checking its content is still what was loaded. The
    file stays open (its descriptor added to ``held``) so its inode cannot be reused."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise ChangedOnDiskError(path) from None
    held.append(fd)
    with os.fdopen(os.dup(fd), "rb") as fh:
        content = fh.read()
    inode = os.fstat(fd).st_ino
    try:
        name = os.lstat(path)
    except FileNotFoundError:
        raise ChangedOnDiskError(path) from None
    if sha256_hex(content) != expect.sha256:
        raise ChangedOnDiskError(path)
    # A link that is replaced (see ``_through_link``): the name's own inode is what is swapped.
    if stat.S_ISLNK(name.st_mode) and hasattr(os, "O_PATH"):  # Linux: a link can be held open
        link_fd = os.open(path, os.O_RDONLY | os.O_PATH | os.O_NOFOLLOW)
        held.append(link_fd)
        if os.fstat(link_fd).st_ino != name.st_ino:  # the link was replaced meanwhile
            raise ChangedOnDiskError(path)
    return name.st_ino if stat.S_ISLNK(name.st_mode) else inode


def _keep_swapped_out(tmp: str, path: Path, verified: int, ours: int, backup: bool) -> None:
    """After an exchange ``tmp`` names what ``path`` held. If that is not the file just
    verified (an editor saved in the instant between), the swap is undone at once, by inode,
    with no reading in between: our version is visible for microseconds at most."""
    if os.lstat(tmp).st_ino != verified:
        _undo_swap(tmp, path, ours)
        raise ChangedOnDiskError(path)
    if backup:
        os.replace(tmp, backup_path(path))
    else:
        os.unlink(tmp)


def _undo_swap(tmp: str, path: Path, ours: int) -> None:
    """Put back what our swap displaced, unless an editor has saved over ours since: its save is
    the newest and stays. Whichever editor save is not left at ``path`` is kept as
    ``<name>.conflict``, never deleted."""
    conflict = path.with_name(path.name + ".conflict")
    if os.lstat(path).st_ino == ours:
        _exchange(tmp, path)
        if os.lstat(tmp).st_ino == ours:
            os.unlink(tmp)
            return
        _exchange(tmp, path)  # a save landed between the check and the swap back: it is the newest
    os.replace(tmp, conflict)


def _backup(path: Path) -> None:
    """``<name>.bak`` := the current file, by a hard link (no copy: works on a full disk)."""
    bak = backup_path(path)
    link = bak.with_name(bak.name + ".tmp")
    try:
        link.unlink(missing_ok=True)
        os.link(path, link, follow_symlinks=False)  # a link's target is never copied beside it
        os.replace(link, bak)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise
        import shutil  # a rare fallback

        shutil.copy2(path, bak, follow_symlinks=False)  # no hard links on this file system


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


@functools.cache
def _load_renameat2():
    """libc's renameat2, loaded on first use: finding libc runs ``ldconfig``, which every
    command that only appends a usage line would otherwise pay for at start-up."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def _exchange(a: str | Path, b: str | Path) -> bool:
    """Swap two paths atomically; False where the system cannot (then nothing changed)."""
    import ctypes

    renameat2 = _load_renameat2()
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(str(a)), _AT_FDCWD, os.fsencode(str(b)), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))

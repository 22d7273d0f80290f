"""Approvals only this user, on this machine, can make.

An approval in ``rules.jsonl`` counts only with ``approval_mac``: an HMAC-SHA256 over the rule
id and the SHA-256 of the approved text, keyed with a secret that lives in the user's data dir
(``<data dir>/keys/approval.key``, mode 0600, created on the first approval), never in a memory
folder. A cloned repository, a synced folder or an agent editing ``rules.jsonl`` can write
``"status": "approved"`` and any hash it likes, but not a MAC this key verifies.

The limit, honestly: a program running as the same user can read the key and sign whatever it
wants. The key makes files unable to approve on their own; it does not stop code that already
runs as you. (``threadback hooks install`` also asks Claude Code not to read it.)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from indexer.config import data_dir
from indexer.named_record import NamedTuple

KEY_DIR = "keys"
KEY_FILE = "approval.key"
MAC_VERSION = "v1"
_KEY_HEX_CHARS = 64


class ApprovalKeyError(OSError):
    """The key cannot be used safely (someone else can write it, or it is not a plain file)."""


def key_path(base: Path | None = None) -> Path:
    """Where the approval key lives: ``<data dir>/keys/approval.key``."""
    return (data_dir() if base is None else Path(base)) / KEY_DIR / KEY_FILE


class ApprovalSigner(NamedTuple):
    """Signs and checks approvals with one key."""

    key: bytes = b""

    def mac(self, rule_id: str, text_sha256: str) -> str:
        message = f"threadback-approval\0{MAC_VERSION}\0{rule_id}\0{text_sha256}".encode(
            "utf-8", "surrogatepass")
        import hashlib  # hashlib, hmac and secrets load OpenSSL (~2.5 ms): on first use, not at start-up
        import hmac

        return f"{MAC_VERSION}:" + hmac.new(self.key, message, hashlib.sha256).hexdigest()

    def verify(self, rule_id: str, text_sha256: str | None, mac: str | None) -> bool:
        if not self.key or not mac or not text_sha256:
            return False
        import hmac

        return hmac.compare_digest(self.mac(rule_id, text_sha256), mac)


NO_KEY = ApprovalSigner()  # verifies nothing: the state before the first approval


def _read_key(path: Path) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:  # a symlink (O_NOFOLLOW), a folder, no permission
        raise ApprovalKeyError(f"{path} cannot be used as the approval key ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ApprovalKeyError(f"{path} is not a regular file; approvals cannot be checked")
        if hasattr(os, "getuid"):
            if info.st_uid != os.getuid():
                raise ApprovalKeyError(f"{path} belongs to another user; approvals cannot be checked")
            if info.st_mode & 0o022:
                raise ApprovalKeyError(
                    f"{path} can be written by other users, so approvals cannot be trusted; "
                    f"delete it and approve your rules again")
            if info.st_mode & 0o077:
                os.fchmod(fd, 0o600)  # readable by others: tighten it, it was never theirs to read
        data = os.read(fd, 4096).strip()
    finally:
        os.close(fd)
    if len(data) != _KEY_HEX_CHARS:
        raise ApprovalKeyError(f"{path} does not hold an approval key; delete it and approve again")
    return data


def _create_key(path: Path) -> None:
    import secrets

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, (secrets.token_hex(_KEY_HEX_CHARS // 2) + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)


def load_signer(*, create: bool, memory_dir: Path | None = None,
                path: Path | None = None) -> ApprovalSigner:
    """The signer with this user's key; ``NO_KEY`` when there is none yet and ``create`` is
    false. Raises ``ApprovalKeyError`` for a key that cannot be trusted, or one that would sit
    inside ``memory_dir`` (a memory folder may be synced or committed)."""
    path = key_path() if path is None else path
    if memory_dir is not None:
        folder = Path(memory_dir).expanduser().resolve()
        if folder == path.parent.resolve() or folder in path.resolve().parents:
            raise ApprovalKeyError(
                f"the approval key {path} would be inside the memory folder {memory_dir}; "
                "use a memory folder outside the data dir's keys")
    try:
        return ApprovalSigner(_read_key(path))
    except FileNotFoundError:
        if not create:
            return NO_KEY
    try:
        _create_key(path)
    except FileExistsError:  # another process made it first: use theirs
        pass
    return ApprovalSigner(_read_key(path))

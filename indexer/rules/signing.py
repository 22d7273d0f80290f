"""Approvals only the person who knows the approval passphrase can make.

An approval in ``rules.jsonl`` (and an allowed memory folder) counts only with a signature
that this user's approval key verifies: Ed25519 over the rule id and the SHA-256 of the approved
text. The private key is never stored anywhere: it is derived with scrypt from a passphrase the
person types at approval time, and kept in this process's memory only while it runs. On disk
(``<data dir>/keys/approval-key.json``, mode 0600) there is only what verifies: the public key,
the scrypt salt and cost, and how and when the key was set up. Reading it lets nobody sign.

What holds, and what does not (the README's security model says the same):

- A cloned repository, a synced folder or an agent editing ``rules.jsonl`` can claim
  ``"status": "approved"``, never make it count.
- An agent running as you can type ``y`` into a review it started in a terminal of its own
  (tmux, ``script``, ``setsid``), but not your passphrase.
- An agent running as you CAN replace the key file with a key of its own and sign with that:
  files of one user cannot be kept from that user's programs. Your next approval then fails
  ("the passphrase does not match this key"), every approval you made before turns "not
  verified", and the key file says how it was made; until then its approvals count. A weak
  passphrase can be guessed offline from the public key and salt (scrypt makes each guess cost).
- The old key file (``approval.key``, an HMAC secret any program of yours could read) signs and
  verifies nothing any more: its approvals count as pending until approved again.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.config import data_dir
from indexer.util.named_record import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:  # ``typing`` and ``json`` are not loaded by a session start that reads rules
    from typing import Any

KEY_DIR = "keys"
KEY_FILE = "approval-key.json"
OLD_KEY_FILE = "approval.key"  # the HMAC secret of before: readable by any program of this user
MAC_VERSION = "v2"
SCRYPT_COST = 2**15  # ~0.1 s and 32 MiB a try: the price of each offline guess of a passphrase
_SCRYPT_R, _SCRYPT_P = 8, 1
_MIN_PASSPHRASE = 8
_KEY_FILE_LIMIT = 64 * 1024


class ApprovalKeyError(OSError, ThreadbackError):
    """The key cannot be used (someone else can write it, it is damaged, or the passphrase does
    not match it)."""
    kind = errors.REFUSED


def key_path(base: Path | None = None) -> Path:
    """Where the approval key's public part lives: ``<data dir>/keys/approval-key.json``."""
    return (data_dir() if base is None else Path(base)) / KEY_DIR / KEY_FILE


def _approval_message(rule_id: str, text_sha256: str) -> bytes:
    return f"threadback-approval\0{MAC_VERSION}\0{rule_id}\0{text_sha256}".encode("utf-8", "surrogatepass")


def _allow_message(folder: str, allowed_at: float) -> bytes:
    return f"threadback-allow\0{MAC_VERSION}\0{folder}\0{allowed_at!r}".encode("utf-8", "surrogatepass")


class ApprovalSigner(NamedTuple):
    """Checks approvals with one public key (it cannot make any)."""

    public: bytes = b""
    setup: dict[str, Any] | None = None  # the key file: salt, cost, when and how it was set up

    def verify(self, rule_id: str, text_sha256: str | None, mac: str | None) -> bool:
        if not self.public or not mac or not text_sha256:
            return False
        return self._verify(_approval_message(rule_id, text_sha256), mac)

    def verify_allow(self, folder: str, allowed_at: float, signature: object) -> bool:
        if not self.public or not isinstance(signature, str):
            return False
        return self._verify(_allow_message(folder, allowed_at), signature)

    def _verify(self, message: bytes, mac: str) -> bool:
        version, _, hex_sig = mac.partition(":")
        if version != MAC_VERSION:
            return False
        try:
            signature = bytes.fromhex(hex_sig)
        except ValueError:
            return False
        # cryptography (OpenSSL's Ed25519, ~20 ms to load): only once there is an approval to check
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True


NO_KEY = ApprovalSigner()  # verifies nothing: the state before the first approval


class UnlockedKey:
    """The private key, derived from the passphrase just typed; lives in this process only."""

    def __init__(self, seed: bytes, signer: ApprovalSigner) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        self._private = Ed25519PrivateKey.from_private_bytes(seed)
        self.signer = signer

    def mac(self, rule_id: str, text_sha256: str) -> str:
        return f"{MAC_VERSION}:" + self._private.sign(_approval_message(rule_id, text_sha256)).hex()

    def sign_allow(self, folder: str, allowed_at: float) -> str:
        return f"{MAC_VERSION}:" + self._private.sign(_allow_message(folder, allowed_at)).hex()

    def public_bytes(self) -> bytes:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        return self._private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


_UNLOCKED: dict[str, UnlockedKey] = {}  # key file -> the key a person unlocked in this process


def _read_key(path: Path) -> dict[str, Any]:
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
                    "delete it and set up your approval passphrase again")
        data = os.read(fd, _KEY_FILE_LIMIT)
    finally:
        os.close(fd)
    import json

    try:
        setup = json.loads(data)
        public = bytes.fromhex(setup["public_key"])
        bytes.fromhex(setup["salt"])
        int(setup["scrypt_n"])
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ApprovalKeyError(f"{path} does not hold an approval key; delete it and set up your "
                               "approval passphrase again") from None
    if len(public) != 32:
        raise ApprovalKeyError(f"{path} does not hold an Ed25519 public key")
    return setup


def load_signer(*, create: bool = False, memory_dir: Path | None = None,
                path: Path | None = None) -> ApprovalSigner:
    """The verifier with this user's public key; ``NO_KEY`` when none is set up yet. Raises
    ``ApprovalKeyError`` for a key file that cannot be trusted, or one that would sit inside
    ``memory_dir`` (a memory folder may be synced or committed). ``create`` is kept for callers
    of before: a key is only ever made by ``set_up`` from a passphrase."""
    path = key_path() if path is None else path
    if memory_dir is not None:
        folder = Path(memory_dir).expanduser().resolve()
        if folder == path.parent.resolve() or folder in path.resolve().parents:
            raise ApprovalKeyError(
                f"the approval key {path} would be inside the memory folder {memory_dir}; "
                "use a memory folder outside the data dir's keys")
    try:
        setup = _read_key(path)
    except FileNotFoundError:
        return NO_KEY
    return ApprovalSigner(bytes.fromhex(setup["public_key"]), setup)


def key_is_set_up(path: Path | None = None) -> bool:
    return (key_path() if path is None else path).exists()


def _derive(passphrase: str, salt: bytes, cost: int) -> bytes:
    import hashlib

    return hashlib.scrypt(passphrase.encode("utf-8", "surrogatepass"), salt=salt, n=cost, r=_SCRYPT_R,
                          p=_SCRYPT_P, maxmem=256 * _SCRYPT_R * cost + 1024 * 1024, dklen=32)


def set_up(passphrase: str, *, how: dict[str, Any], path: Path | None = None, now: float | None = None,
           cost: int = SCRYPT_COST) -> UnlockedKey:
    """Make this user's approval key from ``passphrase`` (typed twice by the caller) and unlock
    it. Refused when a key exists: replacing one voids every approval made with it."""
    import secrets

    path = key_path() if path is None else path
    if len(passphrase) < _MIN_PASSPHRASE:
        raise ApprovalKeyError(f"choose a passphrase of at least {_MIN_PASSPHRASE} characters")
    salt = secrets.token_bytes(16)
    seed = _derive(passphrase, salt, cost)
    unlocked = UnlockedKey(seed, NO_KEY)
    setup = {"version": 2, "public_key": unlocked.public_bytes().hex(), "salt": salt.hex(), "scrypt_n": cost,
             "created_at": time.time() if now is None else now, "created_how": how}
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    import json

    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        raise ApprovalKeyError(f"an approval key is set up already ({path}); type its passphrase") from None
    try:
        os.write(fd, (json.dumps(setup, indent=2) + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    unlocked.signer = ApprovalSigner(unlocked.public_bytes(), setup)
    _UNLOCKED[str(path)] = unlocked
    return unlocked


def unlock(passphrase: str, *, path: Path | None = None) -> UnlockedKey:
    """The private key for ``passphrase``, checked against the key file; it stays unlocked in
    this process (a review asks once). Raises ``ApprovalKeyError`` when it does not match."""
    path = key_path() if path is None else path
    try:
        setup = _read_key(path)
    except FileNotFoundError:
        raise ApprovalKeyError("no approval passphrase is set up yet") from None
    unlocked = UnlockedKey(_derive(passphrase, bytes.fromhex(setup["salt"]), int(setup["scrypt_n"])), NO_KEY)
    import hmac

    if not hmac.compare_digest(unlocked.public_bytes(), bytes.fromhex(setup["public_key"])):
        raise ApprovalKeyError(
            "the passphrase does not match this approval key. If you are sure it is yours, the key "
            f"file {path} was replaced (it says it was set up {_describe_setup(setup)}).")
    unlocked.signer = ApprovalSigner(unlocked.public_bytes(), setup)
    _UNLOCKED[str(path)] = unlocked
    return unlocked


def _describe_setup(setup: dict[str, Any]) -> str:
    when = setup.get("created_at")
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(when)) if isinstance(when, (int, float)) else "at an unknown time"
    how = setup.get("created_how")
    said = how.get("summary") if isinstance(how, dict) else None
    return f"{stamp}, {said}" if isinstance(said, str) else stamp


def unlocked_key(path: Path | None = None) -> UnlockedKey | None:
    """The key a person unlocked in this process, if any (and if the file still matches it)."""
    path = key_path() if path is None else path
    unlocked = _UNLOCKED.get(str(path))
    if unlocked is None:
        return None
    try:
        current = _read_key(path)
    except (OSError, ApprovalKeyError):
        current = {}
    if current.get("public_key") != unlocked.public_bytes().hex():  # replaced since: ask again
        _UNLOCKED.pop(str(path), None)
        return None
    return unlocked


def lock(path: Path | None = None) -> None:
    """Forget the unlocked key (the end of a review; tests)."""
    if path is None:
        _UNLOCKED.clear()
    else:
        _UNLOCKED.pop(str(path), None)

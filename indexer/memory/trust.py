"""Which memory folders the user allowed: a project's ``./memory/`` counts only once allowed.

A memory folder found in the current directory may be a cloned repository's, written by anyone.
Like direnv's ``.envrc``, it is left out of what agents are given until the user allows it
(``threadback memory allow``, or a key in the app, after a listing of what is in it). The record
(``<data dir>/allowed-memory-folders.json``) holds the folder's real path and a SHA-256 of each
of its memory files. After that:

- its facts, scratchpad and episodic entries are read as they are now, always as reference data;
- its rules count only while ``rules.jsonl`` is what was allowed: a change made outside
  Threadback (a ``git pull``, an edit) needs another allow. Threadback's own writes (a proposal,
  an approval in review) carry the allow forward.

A folder the user named (``--memory-dir``, ``$THREADBACK_MEMORY_DIR``) and the global one are
the user's own and always trusted.

An allow counts only when signed with the person's approval key (``indexer.rules.signing``),
unlocked by the passphrase they type when allowing: a program that writes the allow list (an
agent running as you can) cannot make a folder allowed. The record also says how the allow was
made (``indexer.rules.origin``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from indexer import errors
from indexer.errors import ThreadbackError
from indexer.config import MEMORY_FOLDER_FILES, MemoryFolder, data_dir
from indexer.util.digest import file_sha256_hex
from typing import NamedTuple
from indexer.util.quick_json import loads

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from typing import Any

try:
    import fcntl
except ImportError:  # Windows: no advisory locks
    fcntl = None  # type: ignore[assignment]  # the module, absent on Windows

ALLOW_FILE = "allowed-memory-folders.json"
RULES_NAME = "rules.jsonl"
TRUSTED, ALLOWED, CHANGED, NOT_ALLOWED = "trusted", "allowed", "changed since allowed", "not allowed"
ABSENT = "absent"


def allow_list_path() -> Path:
    return data_dir() / ALLOW_FILE


class FolderEntry(NamedTuple):
    """One memory file of a folder, as the allow confirmation lists it."""

    name: str
    size: int
    kind: str  # "file", "symlink", "missing", "other"
    target: str | None = None  # where a symlink points
    outside: bool = False  # a symlink that leaves the folder, or not a regular file

    def describe(self) -> str:
        if self.kind == "symlink":
            where = "outside the folder" if self.outside else "inside the folder"
            return f"{self.name} → {self.target} ({where})"
        if self.kind == "other":
            return f"{self.name} (not a regular file)"
        return f"{self.name} ({self.size:,} bytes)"


def folder_entries(folder: Path) -> list[FolderEntry]:
    """The memory files present in ``folder``: what a person is asked to allow."""
    real_folder = Path(folder).resolve()
    entries = []
    for name in MEMORY_FOLDER_FILES:
        path = Path(folder) / name
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISLNK(info.st_mode):
            target = os.readlink(path)
            resolved = path.resolve()
            inside = resolved.parent == real_folder and resolved.is_file()
            entries.append(FolderEntry(name, 0, "symlink", target, outside=not inside))
        elif stat.S_ISREG(info.st_mode):
            entries.append(FolderEntry(name, info.st_size, "file"))
        else:
            entries.append(FolderEntry(name, 0, "other", outside=True))
    return entries


def _sha256_of(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            return file_sha256_hex(handle)
    except FileNotFoundError:
        return ABSENT


def fingerprint(folder: Path) -> dict[str, str]:
    """SHA-256 of each memory file (``absent`` for a missing one)."""
    return {name: _sha256_of(Path(folder) / name) for name in MEMORY_FOLDER_FILES}


# --- the allow list --------------------------------------------------------------------------


def _key(folder: Path) -> str:
    return str(Path(folder).expanduser().resolve())


def _read_records(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError, UnicodeDecodeError):
        return {}
    folders = data.get("folders") if isinstance(data, dict) else None
    return {k: v for k, v in (folders or {}).items() if isinstance(v, dict)}


class _locked_records:  # noqa: N801 - a context manager, ``with _locked_records() as records:``
    """The records, for a read-change-write that no other process interleaves with (written
    back when changed and nothing raised). A class, not ``@contextmanager``: a session start in
    a project's memory folder loads this module, and ``contextlib`` is ~0.5 ms."""

    def __enter__(self) -> dict[str, dict[str, Any]]:
        self.path = allow_list_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = open(self.path.with_name(ALLOW_FILE + ".lock"), "a")  # noqa: SIM115 - closed in __exit__
        try:
            if fcntl is not None:
                fcntl.flock(self.lock, fcntl.LOCK_EX)
            self.records = _read_records(self.path)
            import json  # a read-change-write of the allow list: a session start only reads it

            self.before = json.dumps(self.records, sort_keys=True)
        except BaseException:
            self.lock.close()
            raise
        return self.records

    def __exit__(self, exc_type: object, *rest: object) -> None:
        import json

        with self.lock:
            if exc_type is None and json.dumps(self.records, sort_keys=True) != self.before:
                text = json.dumps({"version": 1, "folders": self.records}, indent=2, ensure_ascii=False)
                from indexer.util.fileio import atomic_write_text  # writing the allow list only: reading needs none

                atomic_write_text(self.path, text + "\n", backup=False)


class FolderNotAllowable(ValueError, ThreadbackError):
    """A folder that is not safe to allow as it is (a symlink leading out of it)."""
    kind = errors.REFUSED


class AllowLocked(FolderNotAllowable):
    """No approval key is unlocked in this process: the person has not typed the passphrase."""


def allow_folder(folder: Path, *, now: float, how: dict[str, Any] | None = None) -> dict[str, str]:
    """Record ``folder`` as allowed with the hash of each memory file, signed with the key the
    person unlocked in this process (``AllowLocked`` when none is); returns the hashes."""
    from indexer.rules.signing import unlocked_key  # loaded to allow, not to read

    unsafe = [e for e in folder_entries(folder) if e.outside]
    if unsafe:
        raise FolderNotAllowable(
            f"{folder} was not allowed: " + "; ".join(e.describe() for e in unsafe)
            + ". A memory file must be a plain file inside the folder.")
    key = unlocked_key()
    if key is None:
        raise AllowLocked("allowing a memory folder needs your approval passphrase, typed when you "
                          "allow it (`threadback memory allow`, or the app's review pane)")
    if how is None:
        from indexer.rules.origin import approval_origin

        how = approval_origin()
    files = fingerprint(folder)
    name = _key(folder)
    with _locked_records() as records:
        records[name] = {"allowed_at": now, "files": files, "signature": key.sign_allow(name, now), "how": how}
    return files


def disallow_folder(folder: Path) -> bool:
    """Forget an allow; False when the folder was not allowed."""
    with _locked_records() as records:
        return records.pop(_key(folder), None) is not None


def carry_allow_forward(folder: Path, name: str, before: str | None, after: str) -> None:
    """Threadback itself rewrote ``name`` (was ``before``, now ``after``): an allowed folder
    whose record matched the old content stays allowed with the new one."""
    key = _key(folder)
    if key not in _read_records(allow_list_path()):
        return
    with _locked_records() as records:
        files = records.get(key, {}).get("files")
        if isinstance(files, dict) and files.get(name) == (before or ABSENT):
            files[name] = after


# --- a folder's trust --------------------------------------------------------------------------


class FolderTrust(NamedTuple):
    folder: MemoryFolder
    state: str  # TRUSTED, ALLOWED, CHANGED or NOT_ALLOWED
    reason: str = ""  # for NOT_ALLOWED and CHANGED: why, in a few words

    @property
    def memory_readable(self) -> bool:
        """Its facts and episodic entries may be given to agents (as reference)."""
        return self.state != NOT_ALLOWED

    @property
    def rules_count(self) -> bool:
        """Its approved rules may be given to agents as rules."""
        return self.state in (TRUSTED, ALLOWED)

    def note(self) -> str | None:
        """The one line hooks and ``context`` print when the folder is (partly) left out."""
        path = self.folder.path
        if self.state == NOT_ALLOWED:
            return (f"Project memory folder {path} left out: {self.reason}. "
                    "The user allows it with `threadback memory allow` (or in the app).")
        if self.state == CHANGED:
            return (f"Rules of project memory folder {path} left out: {self.reason} since it was "
                    "allowed. The user allows it again with `threadback memory allow`.")
        return None


def folder_trust(folder: MemoryFolder) -> FolderTrust:
    """Whether ``folder`` may be given to agents, and how much of it."""
    if not folder.is_project:
        return FolderTrust(folder, TRUSTED)
    unsafe = [e for e in folder_entries(folder.path) if e.outside]
    if unsafe:
        return FolderTrust(folder, NOT_ALLOWED, "it holds " + "; ".join(e.describe() for e in unsafe))
    name = _key(folder.path)
    record = _read_records(allow_list_path()).get(name)
    if record is None:
        return FolderTrust(folder, NOT_ALLOWED, "not allowed yet")
    unsigned = _unsigned(name, record)
    if unsigned:
        return FolderTrust(folder, NOT_ALLOWED, unsigned)
    files = record.get("files")
    allowed = files if isinstance(files, dict) else {}
    if allowed.get(RULES_NAME) != _sha256_of(folder.path / RULES_NAME):
        return FolderTrust(folder, CHANGED, f"{RULES_NAME} changed")
    return FolderTrust(folder, ALLOWED)


def _unsigned(name: str, record: dict[str, Any]) -> str | None:
    """Why an allow record does not count, or None when the person's key signed it."""
    from indexer.rules.signing import ApprovalKeyError, load_signer

    try:
        signer = load_signer()
    except ApprovalKeyError as exc:
        return f"allows cannot be checked ({exc})"
    allowed_at = record.get("allowed_at")
    if not isinstance(allowed_at, (int, float)) or not signer.verify_allow(name, allowed_at, record.get("signature")):
        return ("its allow is not signed with your approval key (an older Threadback, or a program "
                "that wrote the allow list)")
    return None


def allowed_folders() -> list[tuple[Path, float]]:
    """Every allowed folder and when it was allowed, oldest first."""
    records = _read_records(allow_list_path())
    found = [(Path(k), float(v.get("allowed_at") or 0)) for k, v in records.items()]
    return sorted(found, key=lambda item: item[1])


_SUMMARY_RULES = 10
_SUMMARY_MAX_BYTES = 8 * 1024 * 1024  # a bigger file is counted by size, not read


def folder_summary(folder: Path) -> list[str]:
    """What allowing would hand to agents, in a few lines: how many lines each tier has, and
    the first line of each rule the folder marks approved (these would count as rules)."""
    lines = []
    for entry in folder_entries(folder):
        if entry.kind != "file" or entry.size > _SUMMARY_MAX_BYTES:
            continue
        text = (Path(folder) / entry.name).read_text(encoding="utf-8", errors="replace")
        if entry.name != RULES_NAME:
            lines.append(f"{entry.name}: {text.count(chr(10))} lines")
            continue
        marked = []
        for line in text.splitlines():
            try:
                rule = loads(line)
            except ValueError:
                continue
            if isinstance(rule, dict) and rule.get("status") == "approved" and isinstance(rule.get("text"), str):
                marked.append(rule["text"].strip().split("\n", 1)[0][:100])
        lines.append(f"{RULES_NAME}: {len(text.splitlines())} rules, {len(marked)} marked approved")
        lines += [f"  approved? {first}" for first in marked[:_SUMMARY_RULES]]
        if len(marked) > _SUMMARY_RULES:
            lines.append(f"  … and {len(marked) - _SUMMARY_RULES} more")
    return lines

"""An agent's own config file (JSON or TOML), read and written back the way the agent and the
user left it: other keys, key order, indentation and (TOML) comments kept; written atomically
with a ``.bak`` of the previous version, and only if nobody changed the file since we read it.

A file that does not parse is reported with ``SettingsError`` and never touched.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.agents.settings import SettingsError, json_object_of, read_config_text
from indexer.util.fileio import FileStamp, atomic_write_text, backup_path, check_unchanged


def _real(path: Path) -> Path:
    """Where the data lives: a symlinked config (dotfiles repositories) is written through."""
    return Path(path).expanduser().resolve() if Path(path).expanduser().is_symlink() else Path(path).expanduser()


# --- JSON ------------------------------------------------------------------------------------


@dataclass
class JsonDocument:
    """A JSON object file: ``data`` to change, and how to write it back."""

    path: Path
    data: dict[str, Any]
    stamp: FileStamp
    indent: int | str | None = 2
    ensure_ascii: bool = True
    trailing_newline: bool = True

    def dumps(self) -> str:
        text = json.dumps(self.data, indent=self.indent, ensure_ascii=self.ensure_ascii)
        return text + ("\n" if self.trailing_newline else "")


def _json_layout(text: str) -> tuple[int | str | None, bool, bool]:
    m = re.search(r"^[{\[][ \t]*\r?\n([ \t]+)\S", text, re.MULTILINE)
    if m:
        ws = m.group(1)
        indent: int | str | None = len(ws) if set(ws) == {" "} else ws
    else:
        indent = None if "\n" not in text.strip() else 2
    return indent, text.isascii(), text.endswith("\n")


def load_json(path: Path) -> JsonDocument:
    """The JSON object in ``path`` ({} when the file is missing or empty)."""
    path = _real(path)
    stamp = FileStamp.of(path)
    if not stamp.exists:
        return JsonDocument(path, {}, stamp)
    text = read_config_text(path)
    if not text.strip():
        return JsonDocument(path, {}, stamp)
    data = json_object_of(path, text)
    indent, ascii_only, newline = _json_layout(text)
    return JsonDocument(path, data, stamp, indent, ascii_only, newline)


def save_json(doc: JsonDocument) -> Path | None:
    """Write ``doc`` back; returns the ``.bak`` of the previous version, if there was one."""
    return _save(doc.path, doc.stamp, doc.dumps())


# --- TOML ------------------------------------------------------------------------------------


@dataclass
class TomlDocument:
    """A TOML file as tomlkit reads it: a dict-like document that writes back with its comments."""

    path: Path
    data: Any  # tomlkit.TOMLDocument
    stamp: FileStamp

    def dumps(self) -> str:
        import tomlkit

        return tomlkit.dumps(self.data)


def load_toml(path: Path) -> TomlDocument:
    """The TOML document in ``path`` (empty when the file is missing)."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    path = _real(path)
    stamp = FileStamp.of(path)
    if not stamp.exists:
        return TomlDocument(path, tomlkit.document(), stamp)
    text = read_config_text(path)
    try:
        data = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise SettingsError(f"{path} is not valid TOML ({exc}); it was left unchanged — fix it by hand, "
                            "then run this again") from None
    return TomlDocument(path, data, stamp)


def save_toml(doc: TomlDocument, text: str | None = None) -> Path | None:
    """Write ``doc`` back, or ``text`` in its place (an edit made on the text itself)."""
    return _save(doc.path, doc.stamp, doc.dumps() if text is None else text)


def _save(path: Path, stamp: FileStamp, text: str) -> Path | None:
    check_unchanged(path, stamp)
    atomic_write_text(path, text, backup=True)
    return backup_path(path) if stamp.exists else None


def save_document(doc: JsonDocument | TomlDocument) -> Path | None:
    """``save_json`` or ``save_toml``, whichever the document is."""
    return save_toml(doc) if isinstance(doc, TomlDocument) else save_json(doc)

"""One export in any format, for the ``export`` command and the transcript's export key alike:
collect (``indexer.export``), render in the chosen format, write atomically."""

from __future__ import annotations

from pathlib import Path

from indexer import Index, Session
from indexer.export import SessionExport, collect_export, export_file_name, to_markdown
from indexer.util.fileio import atomic_write_text

FORMATS = ("md", "html", "json")
EXTENSIONS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".json": "json"}


def export_json(export: SessionExport) -> dict:
    """``show --json``'s shape (session, messages), with the subagents nested the same way."""
    from indexer.output import json_shapes as output

    return {
        "session": output.session_json(export.session),
        "messages": [output.message_json(m) for m in export.messages],
        "subagents": [export_json(sub) for sub in export.subagents],
        "secrets_masked": export.secrets_masked,
    }


def render_export(export: SessionExport, fmt: str, *, now: float) -> str:
    if fmt == "md":
        return to_markdown(export)
    if fmt == "html":
        from tui.export_html import to_html

        return to_html(export, now=now)
    if fmt == "json":
        from indexer.output.json_shapes import dumps

        return dumps(export_json(export), indented=True) + "\n"
    raise ValueError(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})")


def format_for(path: Path) -> str | None:
    """The format a file name asks for by its extension (``notes.html``), if any."""
    return EXTENSIONS.get(path.suffix.lower())


def write_export(path: Path, text: str) -> None:
    """Atomically (temp file + rename) into an existing folder; a new file is readable by others
    like any file the user saves (the temp file's private mode is not kept); an existing one
    keeps its mode."""
    if not path.parent.is_dir():
        raise FileNotFoundError(2, f"no folder {path.parent}", str(path.parent))
    existed = path.exists()
    atomic_write_text(path, text, backup=False)
    if not existed:
        path.chmod(0o644)


def export_session(index: Index, session: Session, fmt: str, folder: Path, *, now: float,
                   reveal_secrets: bool = False) -> Path:
    """Write ``session`` to ``folder/<agent>-<id>.<fmt>`` (replacing an earlier export of it)."""
    text = render_export(collect_export(index, session, reveal_secrets=reveal_secrets), fmt, now=now)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / export_file_name(session, fmt)
    write_export(path, text)
    return path

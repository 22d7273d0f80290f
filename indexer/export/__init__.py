"""Exporting a session for someone else to read: which messages, which subagents, what is
masked (``collect``), and the writers that need no UI library (``markdown``). The HTML writer
highlights code with pygments, which the core never imports: it lives in ``tui.export_html``;
the JSON is ``show --json``'s shape (``indexer.output.json_shapes``)."""

from indexer.export.collect import SessionExport, collect_export, export_file_name, subagent_of
from indexer.export.markdown import to_markdown

__all__ = ["SessionExport", "collect_export", "export_file_name", "subagent_of", "to_markdown"]

"""The editor of fact.yml and scratchpad.md: tab moves focus like everywhere else in the app
(a keyboard user is never trapped in a file), and indentation has keys of its own."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import TextArea


class MemoryEditor(TextArea):
    HELP_TITLE = "Editor"  # its keys' section in the help screen
    BINDINGS = [
        Binding("ctrl+right_square_bracket", "indent", "Indent", id="memory.editor.indent", key_display="^]"),
        Binding("ctrl+backslash", "dedent", "Unindent", id="memory.editor.dedent", key_display="^\\",
                show=False),
    ]

    def __init__(self, *, id: str, language: str | None, soft_wrap: bool) -> None:
        super().__init__(id=id, language=language, show_line_numbers=True, soft_wrap=soft_wrap,
                         tab_behavior="focus")
        self.indent_width = 2  # YAML's and Markdown lists' usual step

    def _selected_rows(self) -> range:
        start, end = sorted((self.selection.start, self.selection.end))
        last = end[0] - 1 if end[0] > start[0] and end[1] == 0 else end[0]
        return range(start[0], last + 1)

    def action_indent(self) -> None:
        """Several lines selected: each moves right by one step. Else spaces up to the next
        step at the cursor."""
        rows = self._selected_rows()
        if len(rows) > 1:
            for row in rows:
                self.insert(" " * self.indent_width, (row, 0), maintain_selection_offset=True)
            return
        column = self.cursor_location[1]
        self.insert(" " * (self.indent_width - column % self.indent_width))

    def action_dedent(self) -> None:
        """Each selected line (or the cursor's) moves left by up to one step of spaces."""
        for row in self._selected_rows():
            line = self.document.get_line(row)
            spaces = len(line) - len(line.lstrip(" "))
            remove = min(spaces, self.indent_width)
            if remove:
                self.delete((row, 0), (row, remove), maintain_selection_offset=True)

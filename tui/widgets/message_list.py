"""A session's messages as a window of options over the whole list.

Measuring a message means rendering it, so only a window of about a hundred messages around
the cursor is in the list; it grows as the cursor nears either end and jumps when find or
home/end go outside it. A 1,300-message session opens as fast as a ten-message one.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.message import Message as TextualMessage
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from indexer import Message
from tui.display.message_render import MessageStyles, message_matches, render_message

BEFORE = 30  # messages above the target when a window opens
AFTER = 50  # ... and below it
CHUNK = 50  # messages added when the cursor nears an end of the window
MARGIN = 8  # how near counts as near


class MessageList(OptionList):
    HELP_TITLE = "Messages"  # its keys' section in the help screen
    BINDINGS = [
        # Enter on a tool call that touched files lists the sessions that touched them too.
        Binding("enter", "open", "Expand/file", id="transcript.open"),
        Binding("space", "toggle_message", "Expand", id="transcript.toggle", show=False),
        Binding("ctrl+t", "expand_all", "Expand all", id="transcript.expand_all", show=False),
        Binding("home", "first", "First message", id="transcript.first", show=False),
        Binding("end", "last", "Last message", id="transcript.last", show=False),
    ]
    COMPONENT_CLASSES = {
        "message-list--user",
        "message-list--assistant",
        "message-list--other",
        "message-list--dim",
        "message-list--tool",
        "message-list--match",
        "message-list--focus",
    }

    @dataclass
    class FindMoved(TextualMessage):
        position: int  # 1-based, 0 when there are no matches
        count: int
        needle: str

    @dataclass
    class Opened(TextualMessage):
        """Enter on a message: the screen shows the sessions its files were touched in, or
        expands it (``toggle_message``) when it touched none."""

        message: Message

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.messages: list[Message] = []
        self.expanded: set[int] = set()  # message indexes
        self.focus_id: int | None = None
        self.needle = ""
        self.matches: list[int] = []  # message indexes
        self.window_start = 0
        self.reveal_secrets = False  # API keys, tokens, passwords: masked until asked for
        self._message_styles: MessageStyles | None = None
        self.user_label: str | None = None  # what a user message is called ("you" when None)

    # -- rendering ---------------------------------------------------------------------------
    def _styles(self) -> MessageStyles:
        if self._message_styles is None:
            get = self.get_component_rich_style
            self._message_styles = MessageStyles(
                user=get("message-list--user", partial=True),
                assistant=get("message-list--assistant", partial=True),
                other=get("message-list--other", partial=True),
                dim=get("message-list--dim", partial=True),
                tool=get("message-list--tool", partial=True),
                match=get("message-list--match", partial=True),
                focus=get("message-list--focus", partial=True),
            )
        return self._message_styles

    def notify_style_update(self) -> None:
        self._message_styles = None
        super().notify_style_update()

    def _option(self, index: int) -> Option:
        m = self.messages[index]
        prompt = render_message(m, self._styles(), expanded=index in self.expanded, find=self.needle,
                                focused=m.id == self.focus_id, reveal_secrets=self.reveal_secrets,
                                user_label=self.user_label)
        return Option(prompt, id=str(index))

    @property
    def window_end(self) -> int:
        return self.window_start + self.option_count

    @property
    def current_index(self) -> int | None:
        """The message index under the cursor (not the option index)."""
        return None if self.highlighted is None else self.window_start + self.highlighted

    @property
    def current_message(self) -> Message | None:
        index = self.current_index
        return None if index is None or not self.messages else self.messages[index]

    def _open_window(self, center: int, *, top: bool = True) -> None:
        start = max(0, center - BEFORE)
        end = min(len(self.messages), center + AFTER)
        self.window_start = start
        self.set_options(self._option(i) for i in range(start, end))
        if self.messages:
            self.highlighted = center - start
            self.call_after_refresh(self.scroll_to_highlight, top=top)

    def _grow(self) -> None:
        """Extend the window when the cursor is near one of its ends."""
        if self.highlighted is None:
            return
        if self.highlighted >= self.option_count - MARGIN and self.window_end < len(self.messages):
            end = min(len(self.messages), self.window_end + CHUNK)
            self.add_options(self._option(i) for i in range(self.window_end, end))
        elif self.highlighted < MARGIN and self.window_start > 0:
            keep = self.current_index or 0
            self.window_start = max(0, self.window_start - CHUNK)
            end = self.window_end
            self.set_options(self._option(i) for i in range(self.window_start, end))
            self.highlighted = keep - self.window_start
            self.scroll_to_highlight(top=True)

    def watch_highlighted(self, highlighted: int | None) -> None:
        super().watch_highlighted(highlighted)
        self.call_after_refresh(self._grow)

    def show_messages(self, messages: list[Message], focus_id: int | None = None, needle: str = "") -> None:
        """Show ``messages`` with the cursor on ``focus_id`` and ``needle`` marked (no jump)."""
        self.messages = messages
        self.focus_id = focus_id
        self.expanded = set()
        self.needle = needle.strip()
        self.matches = [i for i, m in enumerate(messages) if self.needle and message_matches(m, self.needle)]
        target = next((i for i, m in enumerate(messages) if m.id == focus_id), 0)
        self._open_window(target)
        if self.needle:
            position = self.matches.index(target) + 1 if target in self.matches else 0
            self.post_message(self.FindMoved(position, len(self.matches), self.needle))

    def update_messages(self, messages: list[Message]) -> None:
        """The session's messages read again (a live update). New ones join the window when it
        reaches the end; the cursor follows them only when it was on the last message, so a
        reader scrolled up stays where they are."""
        old = self.messages
        if not messages or [m.id for m in messages[: len(old)]] != [m.id for m in old]:
            if messages and len(messages) >= len(old):  # read again whole: same places, new ids
                self.messages = messages
                self._rerender(range(self.window_start, self.window_end))
            return
        if len(messages) == len(old):
            return
        following = self.current_index == len(old) - 1 or not old
        reaches_end = self.window_end == len(old)
        self.messages = messages
        if self.needle:
            self.matches += [i for i in range(len(old), len(messages)) if message_matches(messages[i], self.needle)]
        if reaches_end:
            self.add_options(self._option(i) for i in range(len(old), len(messages)))
        if following:
            self._go_to(len(messages) - 1, top=False)

    def _rerender(self, indexes) -> None:
        for index in indexes:
            if self.window_start <= index < self.window_end:
                self.replace_option_prompt_at_index(index - self.window_start, self._option(index).prompt)

    def show_secrets(self, reveal: bool) -> None:
        """Show the secrets in the messages in full, or masked again."""
        self.reveal_secrets = reveal
        self._rerender(range(self.window_start, self.window_end))

    def go_to_message(self, message_id: int | None) -> None:
        """The cursor on the message with this id (nothing happens when it is not here)."""
        index = next((i for i, m in enumerate(self.messages) if m.id == message_id), None)
        if index is not None:
            self._go_to(index)

    def _go_to(self, index: int, *, top: bool = True) -> None:
        if self.window_start <= index < self.window_end:
            self.highlighted = index - self.window_start
            self.scroll_to_highlight(top=top)
        else:
            self._open_window(index, top=top)

    # -- actions --------------------------------------------------------------------------------
    def action_toggle_message(self) -> None:  # named apart from DOMNode's action_toggle(attribute_name)
        index = self.current_index
        if index is None:
            return
        self.expanded ^= {index}
        self._rerender([index])
        self.scroll_to_highlight()

    def action_open(self) -> None:
        message = self.current_message
        if message is None:
            return
        if message.kind == "tool_call":
            self.post_message(self.Opened(message))
        else:
            self.action_toggle_message()

    def action_expand_all(self) -> None:
        window = set(range(self.window_start, self.window_end))
        if window <= self.expanded:
            self.expanded -= window
        else:
            self.expanded |= window
        self._rerender(sorted(window))

    def action_first(self) -> None:
        if self.messages:
            self._go_to(0)

    def action_last(self) -> None:
        if self.messages:
            self._go_to(len(self.messages) - 1, top=False)

    # -- find -----------------------------------------------------------------------------------
    def find(self, needle: str) -> None:
        """Mark ``needle`` everywhere and jump to the first match at or after the cursor."""
        previous = set(self.matches)
        self.needle = needle.strip()
        self.matches = [i for i, m in enumerate(self.messages) if self.needle and message_matches(m, self.needle)]
        self._rerender(sorted(previous | set(self.matches)))
        start = self.current_index or 0
        self._jump(next((i for i in self.matches if i >= start), self.matches[0] if self.matches else None))

    def find_next(self, step: int) -> None:
        if not self.matches:
            self.post_message(self.FindMoved(0, 0, self.needle))
            return
        here = self.current_index or 0
        if step > 0:
            target = next((i for i in self.matches if i > here), self.matches[0])
        else:
            target = next((i for i in reversed(self.matches) if i < here), self.matches[-1])
        self._jump(target)

    def _jump(self, index: int | None) -> None:
        if index is not None:
            self._go_to(index)
        position = self.matches.index(index) + 1 if index is not None and index in self.matches else 0
        self.post_message(self.FindMoved(position, len(self.matches), self.needle))

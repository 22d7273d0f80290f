"""Copying that works over SSH (OSC 52) and where the terminal ignores it (a clipboard tool)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading

from textual.app import App


def _fallback_command() -> list[str] | None:
    """The first local clipboard tool that can work in this session, if any."""
    candidates: list[tuple[str, list[str], bool]] = [
        ("pbcopy", ["pbcopy"], sys.platform == "darwin"),
        ("wl-copy", ["wl-copy"], bool(os.environ.get("WAYLAND_DISPLAY"))),
        ("xclip", ["xclip", "-selection", "clipboard"], bool(os.environ.get("DISPLAY"))),
        ("xsel", ["xsel", "--clipboard", "--input"], bool(os.environ.get("DISPLAY"))),
    ]
    for name, argv, usable in candidates:
        if usable and shutil.which(name):
            return argv
    return None


def _pipe_to(argv: list[str], text: str) -> None:
    try:
        subprocess.run(argv, input=text.encode("utf-8"), timeout=2, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        pass


def copy_text(app: App, text: str) -> None:
    """Put ``text`` on ``app.clipboard`` and the terminal's clipboard (OSC 52), and also hand it
    to a local clipboard tool when one is usable (off the UI thread: xclip can be slow)."""
    app.copy_to_clipboard(text)
    if app.is_headless:
        return
    argv = _fallback_command()
    if argv is not None:
        threading.Thread(target=_pipe_to, args=(argv, text), daemon=True).start()

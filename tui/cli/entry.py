"""The ``threadback`` command's first step: a plain search or hook line goes to the warm server
when one runs (``tui.cli.warm``), before the command line's modules are imported; anything
else, or no server, runs here (``tui.cli.main``)."""

from __future__ import annotations

import sys
import time


def run() -> int:
    started = time.monotonic()
    from tui.cli.warm.client import ask

    code = ask(sys.argv[1:], started)
    if code is not None:
        return code
    from tui.cli.main import run as run_here

    return run_here()

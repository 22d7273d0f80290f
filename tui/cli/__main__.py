"""``python -m tui.cli``: the same as the ``threadback`` command."""

from tui.cli.entry import run

raise SystemExit(run())

"""``python -m tui.cli``: the same as the ``threadback`` command."""

from tui.cli.main import run

raise SystemExit(run())

"""``python -m tui.cli``: the same as the ``threadback`` command."""

from tui.cli.main import main

raise SystemExit(main())

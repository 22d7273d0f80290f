"""A tool call's arguments as the index shows them (the expand action, exports).

Frozen in its output, like ``indexer.text.clip``: arguments kept as a reference into their log
(``indexer.store.log_ref``) are rendered again with this function each time they are read, so a
change here would change how every stored reference reads; a new rendering needs a new flag.
"""

from __future__ import annotations

import json


def to_json(value: object) -> str:
    """Indented JSON, characters beyond ASCII as they are."""
    try:
        return json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError, RecursionError):
        return "(arguments too deeply nested to show)"

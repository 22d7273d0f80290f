"""Cutting a long text to its head and tail, with a marker saying how much went.

Frozen in its output: tool output kept as a reference into its log (``indexer.store.log_ref``)
is rebuilt by cutting the log's string again with this function and the head and tail the
reference recorded, so a change to the marker would change how every stored reference reads.
``tests/core/ingest/test_log_refs.py`` pins it; a new format needs a new function and a new reference flag.
"""

from __future__ import annotations

import re

# What ``cut_middle`` puts where it cut; finds the head and tail of a text it cut.
CUT_MARKER = re.compile(r"\n…\[[\d,]+ characters omitted\]…\n")


def cut_middle(text: str, head: int, tail: int) -> str:
    """Keep the head and the tail of a long text, on character boundaries, marking the cut."""
    if len(text) <= head + tail + 64:
        return text
    omitted = len(text) - head - tail
    return f"{text[:head]}\n…[{omitted:,} characters omitted]…\n{text[-tail:]}"

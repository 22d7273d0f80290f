"""Token counts as people read them: ``1.2M tokens (in 3.4k · out 22k · cache 1.1M read, 40k written)``."""

from __future__ import annotations

from indexer.models import TokenUsage


def compact(count: int) -> str:
    """``950``, ``3.4k``, ``22k``, ``1.2M``: three significant figures at most."""
    for size, unit in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if count >= size:
            value = count / size
            return f"{value:.1f}{unit}" if value < 10 else f"{value:.0f}{unit}"
    return str(count)


def token_summary(tokens: TokenUsage | None) -> str:
    """One line for a details pane or a header; says so when the log carries no usage."""
    if tokens is None:
        return "not in the log"
    parts = [f"in {compact(tokens.input)}", f"out {compact(tokens.output)}"]
    if tokens.cache_read or tokens.cache_write:
        parts.append(f"cache {compact(tokens.cache_read)} read, {compact(tokens.cache_write)} written")
    return f"{compact(tokens.total)} tokens ({' · '.join(parts)})"

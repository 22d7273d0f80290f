"""Where approval may happen: only a person at a terminal approves a rule.

An agent can run commands in a terminal-like shell, so a pseudo-terminal alone is not enough:
the variables the agents set in their shells refuse it too.
"""

from __future__ import annotations

from collections.abc import Mapping

# Set in the shells that coding agents run commands in. Review refuses there even on a pty.
AGENT_ENV_MARKERS = ("CLAUDECODE", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED")


def review_refusal(interactive: bool, env: Mapping[str, str]) -> str | None:
    """Why review must not run here, or ``None`` when a person is plausibly at a terminal
    (``interactive``: stdin and stdout are both a terminal)."""
    if not interactive:
        return (
            "review needs an interactive terminal (stdin and stdout must both be a TTY); "
            "approval cannot be piped or scripted. Run it yourself in a terminal, or use the "
            "review pane in `threadback`."
        )
    marker = next((name for name in AGENT_ENV_MARKERS if env.get(name)), None)
    if marker:
        return f"review is not available inside a coding agent's shell (${marker} is set)"
    return None

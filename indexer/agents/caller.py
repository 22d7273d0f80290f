"""Which agent session is running a command, when its hook or shell says so: a search it runs
should not find the session itself."""

from __future__ import annotations

import os
from collections.abc import Mapping

SESSION_ENV_VARS = ("THREADBACK_SESSION_ID", "CLAUDE_SESSION_ID")


def calling_session(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The calling session's id (as a one-element tuple of sessions to leave out), or ()."""
    env = os.environ if env is None else env
    for name in SESSION_ENV_VARS:
        value = env.get(name, "").strip()
        if value:
            return (value,)
    return ()

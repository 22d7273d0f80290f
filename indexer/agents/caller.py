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


CLAUDE_CODE, CODEX = "claude-code", "codex"


def hook_caller(payload: Mapping[str, object]) -> str:
    """Which agent sent a hook event, from the event itself.

    Codex adds ``turn_id`` to its turn events (UserPromptSubmit, Stop) and, in newer versions,
    ``codex_hook_capabilities`` to SessionStart; its transcripts are ``rollout-*.jsonl`` files
    under ``$CODEX_HOME/sessions`` (github.com/openai/codex ``codex-rs/hooks/src/schema.rs``).
    Claude Code sends neither and keeps transcripts under ``~/.claude/projects``. Anything
    else is taken for Claude Code, whose format Codex shares."""
    if "turn_id" in payload or "codex_hook_capabilities" in payload:
        return CODEX
    transcript = payload.get("transcript_path")
    if isinstance(transcript, str) and transcript:
        # its parts as PurePath names them, without loading pathlib on the hook's path
        parts = [part for part in transcript.split(os.sep) if part not in ("", ".")]
        if (parts and parts[-1].startswith("rollout-")) or ".codex" in parts:
            return CODEX
    return CLAUDE_CODE

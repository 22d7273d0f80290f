"""The usage log: one JSON line per hook call and agent-facing search (its report, read back
from it: ``indexer.agents.usage_report``).

``<data dir>/usage.jsonl``; each line holds ``ts`` (epoch seconds), ``kind`` (``search``,
``hook-prompt``, ``hook-session-start``, ``hook-refresh``, ``context``, and ``show`` / ``resume``
when a session is opened after a search), and where they apply
``query``, ``hits``, ``excluded`` (session ids left out), ``session`` (the calling session),
``chosen`` (the session the agent went on to open, when known), ``fired`` (the prompt detector),
``agent`` (whose hook called), ``by`` (who made the call: ``you`` at a shell, an ``agent`` running
the CLI, a ``hook``) and ``ms`` (duration). It is how search gets tuned from real use: which
queries find nothing, and whose calls those were.
Writing is best effort: a full disk must never break a search or a hook.
"""

from __future__ import annotations

# ``pathlib`` is not imported here: a search and a hook write
# the log by its ``str`` path and load no ``pathlib`` (~4 ms with ``urllib.parse``, ``ipaddress``).

import os

from indexer.util.append_log import append_line
from indexer.config import data_dir, data_dir_str
from indexer.util.named_record import NamedTuple
from indexer.util.quick_json import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

USAGE_FILE = "usage.jsonl"
MAX_QUERY_CHARS = 500


YOU, AGENT, HOOK = "you", "agent", "hook"
CALLERS = (YOU, AGENT, HOOK)
# Set in the shell an agent runs a command in: Claude Code's ``CLAUDECODE=1``, Codex's sandbox
# variables and thread id, and the session ids an agent's hook or shell passes on (``caller``).
AGENT_ENV_VARS = ("CLAUDECODE", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_THREAD_ID",
                  "THREADBACK_SESSION_ID", "CLAUDE_SESSION_ID")


def caller_of(env: "Mapping[str, str] | None" = None) -> str:
    """Whether a CLI call comes from an agent (``AGENT``) or from you at a shell (``YOU``)."""
    env = os.environ if env is None else env
    return AGENT if any(env.get(name, "").strip() for name in AGENT_ENV_VARS) else YOU


def usage_log_path() -> "Path":
    return data_dir() / USAGE_FILE


class UsageEvent(NamedTuple):
    ts: float
    kind: str
    query: str | None = None
    hits: int | None = None
    excluded: tuple[str, ...] = ()
    session: str | None = None
    chosen: str | None = None
    fired: bool | None = None
    ms: float | None = None
    agent: str | None = None  # the agent whose hook made the call (claude-code, codex)
    by: str | None = None  # YOU, AGENT or HOOK (``caller_of``); None in lines written before it

    @property
    def caller(self) -> str:
        """Who made the call; a line from before ``by`` was written: a hook by its kind, else you."""
        return self.by or (HOOK if self.kind.startswith("hook-") else YOU)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ts": round(self.ts, 3), "kind": self.kind}
        if self.query is not None:
            out["query"] = self.query[:MAX_QUERY_CHARS]
        for name in ("hits", "session", "chosen", "fired", "agent", "by"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.excluded:
            out["excluded"] = list(self.excluded)
        if self.ms is not None:
            out["ms"] = round(self.ms, 1)
        return out

    @classmethod
    def from_json(cls, obj: object) -> "UsageEvent | None":
        if not isinstance(obj, dict):
            return None
        ts, kind = obj.get("ts"), obj.get("kind")
        if not isinstance(ts, (int, float)) or isinstance(ts, bool) or not isinstance(kind, str):
            return None
        hits = obj.get("hits")
        excluded = obj.get("excluded") or ()
        return cls(
            ts=float(ts),
            kind=kind,
            query=obj["query"] if isinstance(obj.get("query"), str) else None,
            hits=hits if isinstance(hits, int) and not isinstance(hits, bool) else None,
            excluded=tuple(str(x) for x in excluded) if isinstance(excluded, list) else (),
            session=obj["session"] if isinstance(obj.get("session"), str) else None,
            chosen=obj["chosen"] if isinstance(obj.get("chosen"), str) else None,
            fired=obj["fired"] if isinstance(obj.get("fired"), bool) else None,
            ms=float(obj["ms"]) if isinstance(obj.get("ms"), (int, float)) else None,
            agent=obj["agent"] if isinstance(obj.get("agent"), str) else None,
            by=obj["by"] if obj.get("by") in CALLERS else None,
        )


def record_usage(event: UsageEvent, path: "str | Path | None" = None) -> bool:
    """Append one line; False (and nothing raised) when the log cannot be written."""
    try:
        line = dumps(event.to_json())
        append_line(path or os.path.join(data_dir_str(), USAGE_FILE), line)
    except (OSError, ValueError):
        return False
    return True


def read_usage(path: "Path | None" = None) -> list[UsageEvent]:
    """Every readable line; broken lines are skipped."""
    import json

    try:
        text = (path or usage_log_path()).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    events = []
    for line in text.splitlines():
        try:
            event = UsageEvent.from_json(json.loads(line))
        except ValueError:
            continue
        if event is not None:
            events.append(event)
    return events


"""Every verb of the ``threadback`` command: the module whose ``register(sub)`` adds it
(imported only when that verb runs) and its one-line help, in the order ``--help`` lists them.

The top-level help, an unknown verb's "invalid choice" and the full-screen app's options are
built from this table alone, without importing any command module (that took ~100 ms). Each
module takes its verb's help from here (``help_of``), so the two cannot drift apart.
"""

from __future__ import annotations

VERB_TABLE: dict[str, tuple[str, str]] = {
    "index": ("tui.cli.index", "find agents' logs and update the index"),
    "search": ("tui.cli.index", 'search sessions (words, "phrases", OR, NOT word, agent: project: since: ...)'),
    "show": ("tui.cli.index", "print a session's transcript (or a window around one message)"),
    "sessions": ("tui.cli.index", "list sessions"),
    "resume": ("tui.cli.index", "print (or --exec: run) the command that resumes a session in its agent"),
    "events": ("tui.cli.index", "the normalised event stream as JSON lines"),
    "restore": ("tui.cli.archive", "write a session's log back from the archive, byte for byte"),
    "files": ("tui.cli.files", "list the sessions that touched a file (read, edit, write, delete, shell)"),
    "blame": ("tui.cli.blame", "which session's edit last wrote each line of a file"),
    "handoff": ("tui.cli.handoff", "brief another agent on a session and start it there (or --print the brief)"),
    "export": ("tui.cli.export", "write a session as Markdown (for an agent), HTML (for people) or JSON"),
    "memory": ("tui.cli.memory", "read and write long-term memory (fact, episodic, scratchpad)"),
    "rules": ("tui.cli.rules", "rules proposed by agents, approved by you"),
    "context": ("tui.cli.agents", "what a new agent session should start with (rules, memory)"),
    "hooks": ("tui.cli.agents", "install, remove or check Threadback's hooks and MCP server in your agents"),
    "mcp": ("tui.cli.agents", "serve the history to MCP clients over stdio (`hooks install --mcp` registers it)"),
    "usage": ("tui.cli.agents", "how agents used Threadback: calls per day, zero-hit queries"),
    "hook": ("tui.cli.hook", "run by an agent's hooks (reads the event JSON on stdin)"),
    "doctor": ("tui.cli.doctor", "per agent: where its logs are, how long it keeps them, whether the archive has them"),
}


# Each verb -> the module whose ``register(sub)`` adds it (a module may add several verbs).
VERBS: dict[str, str] = {verb: module for verb, (module, _) in VERB_TABLE.items()}


def help_of(verb: str) -> str:
    """The verb's one-line help, as the top-level ``--help`` lists it."""
    return VERB_TABLE[verb][1]

"""What coding agents use: the Claude Code hook flow, the recall detector, the context a session
starts with, the usage log, resume commands, settings files and the AGENTS.md block."""

"""What the core hands to people and agents: one JSON shape per record (the CLI's
``--json``, the MCP tools, exports and the app alike) and secrets masked on the way out."""

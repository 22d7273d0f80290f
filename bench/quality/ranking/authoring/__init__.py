"""Hand-written test sessions: one script per session (``scripts_*``), written out in each
agent's real log format by ``writers``. Regenerate the logs with ``write_sessions.py``."""

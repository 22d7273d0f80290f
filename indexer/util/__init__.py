"""Small helpers with no knowledge of sessions: safe file writes, append-only logs,
digests, quick JSON, a size-bounded cache, and the light record classes of the
start-up path."""

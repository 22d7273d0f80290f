"""Provenance: from a line of a file, or a memory, back to the session that made it.

``blame`` attributes each line of a file to the session edit that last wrote it; ``handoff``
writes a session's brief for another agent. No UI imports, like the rest of ``indexer``.
"""

"""The index files: schema and migrations, connections, the side file's shape, storage rows.

Only ``indexer.ingest`` writes them; ``indexer.search`` and the ``Index`` facade read them.
"""

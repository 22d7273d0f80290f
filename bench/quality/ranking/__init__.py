"""A labelled ranking set for session search: hand-written test sessions, queries with the
sessions where their work really happened, and the scorer (``score``) over ``Index.search``."""

"""Searching: the query language, the session index (trigram and CJK bigram), snippets, what to
try after no hits, and one search over sessions and memory together."""

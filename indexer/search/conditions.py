"""Conditions on a message (``m``) in a search's SQL that ask another index table: written
for the tables the SELECT reads, so the word path's probe can stand in for the trigram tables."""

from __future__ import annotations

from indexer.util.named_record import NamedTuple

# The two trigram shards (see indexer.ingest.side); the bigram table lives in the side file too.
TRIGRAM_TABLES = ("fts", "fts_side")


class InIndex(NamedTuple):
    """A condition: the message is among the matches of an expression (a parameter) in any of
    ``tables``, within the id bounds. ``candidates._select`` writes its SQL for the tables it reads: the
    word path's probe (``indexer.search.rare_words``) stands in for the trigram tables."""

    tables: tuple[str, ...]
    negated: bool = False

    def sql(self, probe: str | None) -> str:
        names = [probe if probe and t in TRIGRAM_TABLES else t for t in self.tables]
        return ("NOT " if self.negated else "") + "(" + " OR ".join(in_table(t) for t in names) + ")"


Condition = str | InIndex


def in_table(table: str) -> str:
    return f"m.id IN (SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid BETWEEN ? AND ?)"

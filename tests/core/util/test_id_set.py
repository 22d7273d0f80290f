"""The bit set of row ids a run counts its sessions with: the same answers as a ``set``."""

from __future__ import annotations

import random

from indexer.util.id_set import IdSet


def test_it_holds_and_counts_what_a_set_does():
    rng = random.Random(7)
    ids = IdSet()
    plain: set[int] = set()
    for _ in range(5000):
        batch = [rng.randrange(0, 200_000) for _ in range(rng.randrange(1, 5))]
        ids |= batch
        plain |= set(batch)
        one = rng.randrange(0, 300_000)
        ids.add(one)
        plain.add(one)
    assert len(ids) == len(plain)
    assert all(i in ids for i in plain)
    assert sum(i in ids for i in range(300_000)) == len(plain)
    assert -1 not in ids and "3" not in ids and 10**9 not in ids


def test_ids_at_the_edges():
    ids = IdSet([0, 7, 8, 1 << 20])
    ids.add(0)
    assert len(ids) == 4 and 0 in ids and 7 in ids and 8 in ids and (1 << 20) in ids and 9 not in ids

"""A set of row ids as one bit each.

A cold build counts the sessions it touched: as a ``set`` of ints, 112,000 sessions held ~8 MB
of the main process for the whole run (issue 38: under 120 MB a process at 20x); as bits in a
bytearray, 14 KB.
"""

from __future__ import annotations

from collections.abc import Iterable


class IdSet:
    """Non-negative integers (row ids), each held once; ``len`` is how many."""

    __slots__ = ("_bits", "_count")

    def __init__(self, ids: Iterable[int] = ()) -> None:
        self._bits = bytearray()
        self._count = 0
        self.update(ids)

    def add(self, i: int) -> None:
        byte, bit = i >> 3, 1 << (i & 7)
        if byte >= len(self._bits):
            self._bits.extend(bytes(max(byte + 1 - len(self._bits), len(self._bits) // 2)))
        if not self._bits[byte] & bit:
            self._bits[byte] |= bit
            self._count += 1

    def update(self, ids: Iterable[int]) -> None:
        for i in ids:
            self.add(i)

    def __ior__(self, ids: Iterable[int]) -> IdSet:
        self.update(ids)
        return self

    def __contains__(self, i: object) -> bool:
        if not isinstance(i, int) or i < 0 or (i >> 3) >= len(self._bits):
            return False
        return bool(self._bits[i >> 3] & (1 << (i & 7)))

    def __len__(self) -> int:
        return self._count

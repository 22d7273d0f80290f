"""A cache bounded by the total size of what it holds (``len`` of each value), the least recently
used dropped first. A lock around it: the app reads transcripts from worker threads.

Kept by the archive's range reads (decompressed frames) and by the tool output read back through
log references (rebuilt texts): both are read again and again while a transcript is open.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sized
from typing import Generic, TypeVar

Value = TypeVar("Value", bound=Sized)


class SizedCache(Generic[Value]):
    def __init__(self, limit: int) -> None:
        self._limit, self._size = limit, 0
        self._values: OrderedDict[Hashable, Value] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Value | None:
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Value) -> None:
        if len(value) > self._limit:
            return  # it would push out everything else and still not stay
        with self._lock:
            if key in self._values:
                return
            self._values[key] = value
            self._size += len(value)
            while self._size > self._limit:
                _, dropped = self._values.popitem(last=False)
                self._size -= len(dropped)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._size = 0

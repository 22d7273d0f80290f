"""Which messages get a vector, what text it is made from, and the vector as a binary code.

A code keeps one bit per dimension (its sign): 32 bytes for wordllama's 256 dimensions, an
eighth of int8 vectors. Ranking by Hamming distance over codes finds the neighbourhood; the best
few hundred are then scored exactly by embedding their text again (``indexer.search.meaning``).
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    import numpy as np

# What people and agents wrote to each other: not tool calls, tool output, or injected text.
# Each message is embedded alone. Measured on the paraphrase set with 8,500 generated messages
# beside it: a message embedded with the one before it found 11 of 27 tuned queries first
# instead of 8, and 7 of 13 held-out ones as before: not enough to double the build's tokens.
EMBEDDED_WHERE = "role IN ('user', 'assistant') AND kind = 'text' AND indexed != 0"
HEAD_CHARS = 2000  # what of a long message is embedded (the model reads at most 256 tokens of it)

# The English model has no meaning for other scripts: their bytes become fallback tokens that
# cost time and blur the mean. A multilingual model would keep them (``Embedder.keeps_all_scripts``).
_OTHER_SCRIPTS = re.compile("[^\x00-\u052f\u1e00-\u1eff\u2000-\u206f]+")


def embedded_text(text: str, keep_all_scripts: bool = False) -> str:
    head = text[:HEAD_CHARS]
    return head if keep_all_scripts or head.isascii() else _OTHER_SCRIPTS.sub(" ", head)


def to_codes(vectors: np.ndarray) -> np.ndarray:
    """One row of packed sign bits per vector (uint8, dim/8 columns)."""
    import numpy as np

    return np.packbits(vectors > 0, axis=1)


def hamming(codes: np.ndarray, query_code: np.ndarray) -> np.ndarray:
    """Bits that differ between each code and the query's (codes: n x bytes, uint8)."""
    import numpy as np

    width = codes.shape[1]
    if width % 8 == 0:
        words = np.ascontiguousarray(codes).view(np.uint64)
        return np.bitwise_count(words ^ np.ascontiguousarray(query_code).view(np.uint64)).sum(axis=1, dtype=np.int32)
    return np.bitwise_count(codes ^ query_code).sum(axis=1, dtype=np.int32)

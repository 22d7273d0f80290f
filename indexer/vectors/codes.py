"""Which messages get a vector, what text it is made from, and the vector as a binary code.

A code keeps one bit per dimension (its sign): 32 bytes for wordllama's 256 dimensions, an
eighth of int8 vectors. Ranking by Hamming distance over codes finds the neighbourhood; the best
few hundred are then scored exactly by embedding their text again (``indexer.search.meaning``).
"""

from __future__ import annotations

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
# Kept: Latin, Greek and Cyrillic (to U+052F), Latin Extended Additional, general punctuation.
_KEPT_RANGES = ((0x1E00, 0x1EFF), (0x2000, 0x206F))
_LAST_KEPT_BLOCK = 0x52F


def embedded_text(text: str, keep_all_scripts: bool = False) -> str:
    return embedded_texts([text], keep_all_scripts)[0]


def embedded_texts(texts: list[str], keep_all_scripts: bool = False) -> list[str]:
    """Each text's head, every character of another script a space: the model splits on
    whitespace, so its words are those of the text with those runs cut out. A batch's heads are
    cleaned at once as code points: a regular expression run on each text took 1.4 s of the
    generated 1 GB tree's 398,000 embedded messages (most of them mix Chinese into English), this
    0.66 s; the real-format tree's (mostly ASCII, left as they are) 0.10 and 0.05 s."""
    heads = [text[:HEAD_CHARS] for text in texts]
    mixed = [] if keep_all_scripts else [i for i, head in enumerate(heads) if not head.isascii()]
    if not mixed:
        return heads
    import numpy as np

    # surrogatepass: a lone surrogate (JSON may carry one) is a code point like any other here.
    points = np.frombuffer("".join([heads[i] for i in mixed]).encode("utf-32-le", "surrogatepass"),
                           dtype=np.uint32).copy()
    other = points > _LAST_KEPT_BLOCK
    for low, high in _KEPT_RANGES:
        other &= (points < low) | (points > high)
    points[other] = ord(" ")
    cleaned = points.tobytes().decode("utf-32-le")
    at = 0
    for i in mixed:  # one character for one: each head is where it was
        end = at + len(heads[i])
        heads[i] = cleaned[at:end]
        at = end
    return heads


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

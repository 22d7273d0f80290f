"""Search by meaning: messages whose sense is near the query's though they share no word with it
("the time the db kept saying it was locked" finds a session about ``database is locked``).

Every message's binary code (``indexer.vectors``) is compared with the query's by Hamming
distance, in numpy; the best ``RESCORE`` are embedded again from their text and ranked by cosine
similarity. Fails open: with the model's package missing, meaning turned off in the config, the
vectors not built yet or damaged, ``meaning_hits`` returns None and ``meaning_status`` says why
in one line. Nothing is imported until a search asks for meaning.
"""

from __future__ import annotations

import os
from _thread import allocate_lock  # what threading.Lock is, without importing threading

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from pathlib import Path

RESCORE = 400  # codes re-scored exactly: the Hamming ranking's best, re-embedded from their text
# Messages stored since the codes, embedded from their text at each search: an index run leaves
# fewer than ``indexer.vectors.build.EMBED_FROM`` for a later one. The newest this many.
WAITING_SEARCHED = 512
MIN_SIMILARITY = 0.0  # below it a message is no nearer than an unrelated one

_embedders: dict = {}
_loaded: dict = {}  # index file -> (stamp, ids, codes): the app searches many times on one index
_why: dict[str, str] = {}  # index file -> why the last search had no vectors
_one_at_a_time = allocate_lock()  # the app's workers may search at once; the model's word cache is not shared safely


def meaning_hits(index_path: str | Path, query: str, limit: int) -> list[tuple[int, float]] | None:
    """Message rowids (``messages.id``) by similarity to ``query``, best first, at most ``limit``;
    None when search by meaning is unavailable (``meaning_status`` says why). Never raises."""
    file = os.fspath(index_path)
    try:
        with _one_at_a_time:
            return _hits(file, query, limit)
    except Exception as exc:  # fails open: a damaged table, an odd model file, an unreadable index
        _why[file] = f"search by meaning failed ({type(exc).__name__}: {exc}); results are by words only"
        return None


def meaning_status(index_path: Path) -> str:
    """One line: whether search by meaning is available for this index, and if not, why."""
    file = os.fspath(index_path)
    try:
        return _status(file)
    except Exception as exc:
        return f"search by meaning is unavailable ({type(exc).__name__}: {exc})"


def _unavailable(file: str) -> str | None:
    """Why meaning cannot be searched on this index, or None when it can be tried."""
    from indexer.config import load_meaning_setting
    from indexer.vectors.model import DEFAULT_MODEL, ModelUnavailable

    if not load_meaning_setting().enabled:
        return "search by meaning is off ([meaning] enabled = false in the config file)"
    try:
        _embedder(DEFAULT_MODEL)
    except (ModelUnavailable, ImportError) as exc:
        return f"search by meaning is unavailable: {exc}"
    if not os.path.exists(file):
        return f"search by meaning is unavailable: no index at {file}"
    return None


def _status(file: str) -> str:
    why = _unavailable(file)
    if why:
        return why
    from indexer.vectors import store
    from indexer.vectors.codes import EMBEDDED_WHERE

    conn = _connect(file)
    try:
        if not store.has_tables(conn):
            return "search by meaning is not ready: its vectors are built by the next index run"
        through = store.embedded_through(conn)
        vectors = conn.execute("SELECT coalesce(sum(length(ids)), 0) / 2 FROM main.meaning_blocks").fetchone()[0]
        waiting = conn.execute(f"SELECT count(*) FROM main.messages WHERE id > ? AND {EMBEDDED_WHERE}",
                               (through,)).fetchone()[0]
    finally:
        conn.close()
    if waiting > WAITING_SEARCHED:
        return f"search by meaning covers {vectors:,} messages; {waiting:,} newer ones wait for the next index run"
    if waiting:
        return (f"search by meaning is ready ({vectors:,} messages, and the {waiting:,} newest embedded as they are "
                "searched until an index run stores theirs)")
    return _why.get(file) or f"search by meaning is ready ({vectors:,} messages)"


def _hits(file: str, query: str, limit: int) -> list[tuple[int, float]] | None:
    why = _unavailable(file)
    if why:
        _why[file] = why
        return None
    from indexer.vectors.model import DEFAULT_MODEL

    embedder = _embedder(DEFAULT_MODEL)
    conn = _connect(file)
    try:
        loaded = _codes(conn, file, embedder)
        if loaded is None:
            _why[file] = "search by meaning is not ready: its vectors are built by the next index run"
            return None
        _why.pop(file, None)
        ids, codes = loaded
        return _rank(conn, embedder, ids, codes, query, limit)
    finally:
        conn.close()


def _rank(conn, embedder, ids, codes, query: str, limit: int) -> list[tuple[int, float]]:
    import numpy as np

    from indexer.vectors import store
    from indexer.vectors.codes import EMBEDDED_WHERE, embedded_text, embedded_texts, hamming, to_codes

    keep = embedder.keeps_all_scripts
    query_vector = embedder.embed_queries([embedded_text(query, keep)])
    through = store.embedded_through(conn)
    waiting = [r[0] for r in conn.execute(f"SELECT id FROM main.messages WHERE id > ? AND {EMBEDDED_WHERE}"
                                          " ORDER BY id DESC LIMIT ?", (through, WAITING_SEARCHED))]
    if limit <= 0 or not (len(ids) or waiting) or not query_vector.any():
        return []
    candidates = waiting
    if len(ids):
        distance = hamming(codes, to_codes(query_vector)[0])
        take = min(len(ids), max(RESCORE, limit))
        best = np.argpartition(distance, take - 1)[:take] if take < len(ids) else np.arange(len(ids))
        candidates = list(dict.fromkeys([*(int(i) for i in ids[best]), *waiting]))  # each once
    texts: dict[int, str] = {}
    for start in range(0, len(candidates), 500):
        chunk = candidates[start:start + 500]
        texts.update(conn.execute(f"SELECT id, text FROM main.messages WHERE id IN ({','.join('?' * len(chunk))})"
                                  f" AND {EMBEDDED_WHERE}", chunk).fetchall())
    found = [i for i in candidates if i in texts]  # a message deleted since its code was stored drops out
    if not found:
        return []
    # (Tried: adding to each message a share of its session's next best candidate. With other
    # sessions indexed beside the set it lost hit@1: sessions of many alike messages won.)
    scores = embedder.embed(embedded_texts([texts[i] for i in found], keep)) @ query_vector[0]
    order = np.argsort(-scores, kind="stable")[:limit]
    return [(found[k], float(scores[k])) for k in order if scores[k] > MIN_SIMILARITY]


def _codes(conn, file: str, embedder):
    """(ids, codes) of the index, read once per change of the index (None: not built yet)."""
    from indexer.vectors import store

    if not store.holds_codes_of(conn, embedder.name):
        return None
    stamp = store.meta_value(conn, "meaning_serial")
    cached = _loaded.get(file)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    loaded = store.read_all(conn, embedder.dim // 8)
    _loaded[file] = (stamp, loaded)
    return loaded


def _embedder(name: str):
    if name not in _embedders:
        from indexer.vectors.model import load_embedder

        embedder = load_embedder(name)
        embedder.for_search()
        _embedders[name] = embedder
    return _embedders[name]


def _connect(file: str):
    import sqlite3

    from indexer.store.file_uri import path_uri

    return sqlite3.connect(path_uri(file) + "?mode=ro", uri=True)

"""Copies of a message found through ``dedup_keys`` (indexer.store.dedup_keys): in a new index,
in one made before the table (its ``messages.dedup`` UNIQUE), and after a log's rows go."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from indexer import Index, only_roots

from conftest import FIXED_NOW

ORIGINAL, FORK = "0a000000-0000-4000-8000-000000000001", "0b000000-0000-4000-8000-000000000002"


def record(uuid: str, kind: str, text: str, session: str, **extra) -> dict:
    role = "user" if kind == "user" else "assistant"
    content = text if kind == "user" else [{"type": "text", "text": text}]
    return {"type": kind, "uuid": uuid, "sessionId": session, "timestamp": "2026-03-01T10:00:00Z",
            "message": {"role": role, "content": content}, **extra}


def write(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


SHARED = [("u1", "user", "Why does the invoice PDF lose its logo?"), ("a1", "assistant", "The logo URL is relative")]


def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "logs" / "-w-x"
    folder.mkdir(parents=True, exist_ok=True)
    write(folder / f"{ORIGINAL}.jsonl", [record(u, k, t, ORIGINAL) for u, k, t in SHARED])
    return folder


def add_fork(folder: Path) -> None:
    copied = [record(u, k, t, FORK, forkedFrom={"sessionId": ORIGINAL}) for u, k, t in SHARED]
    write(folder / f"{FORK}.jsonl", copied + [record("u2", "user", "Make it absolute then", FORK)])


def roots(tmp_path: Path):
    return only_roots({"claude-code": [tmp_path / "logs"]})


def keys_match_messages(db: Path) -> bool:
    """Every keyed message has its key in the table, naming it, and the table names no other."""
    with closing(sqlite3.connect(db)) as conn:
        table = set(conn.execute("SELECT key, id FROM dedup_keys"))
        held = set(conn.execute("SELECT dedup, id FROM messages WHERE dedup IS NOT NULL"))
    return bool(table) and table == held


def test_a_new_index_keeps_no_index_on_the_message_column(tmp_path: Path):
    """The random keys' index is what made big builds write every page again (the table
    replaces it): a new index must not have one on ``messages.dedup``."""
    index = Index(tmp_path / "index.sqlite3")
    index.update(roots(tmp_path), now=FIXED_NOW)
    index.close()
    with closing(sqlite3.connect(tmp_path / "index.sqlite3")) as conn:
        on_dedup = [name for name, *_ in (conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'"
                                                       " AND tbl_name = 'messages'"))
                    if any(col[2] == "dedup" for col in conn.execute(f"PRAGMA index_info('{name}')"))]
    assert on_dedup == []


def test_a_fork_read_in_a_later_run_is_stored_whole_and_found_once(tmp_path: Path):
    folder = logs(tmp_path)
    index = Index(tmp_path / "index.sqlite3")
    index.update(roots(tmp_path), now=FIXED_NOW)
    add_fork(folder)
    index.update(roots(tmp_path), now=FIXED_NOW)
    assert [m.text for m in index.messages(index.session(FORK))] == [t for _, _, t in SHARED] + ["Make it absolute then"]
    assert [h.message.text for h in index.search("invoice logo", now=FIXED_NOW).hits] == [SHARED[0][2]]
    index.close()
    assert keys_match_messages(tmp_path / "index.sqlite3")


def test_an_index_made_before_the_table_gets_it_filled_and_still_finds_copies(tmp_path: Path):
    """The layout before: no table, ``messages.dedup`` UNIQUE. Its next run fills the table from
    that column, so a fork read then is still told apart from its origin's messages."""
    folder = logs(tmp_path)
    db = tmp_path / "index.sqlite3"
    index = Index(db)
    index.update(roots(tmp_path), now=FIXED_NOW)
    index.close()
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:  # the old layout, as far as a writer can tell
        conn.execute("DROP TABLE dedup_keys")
        conn.execute("CREATE UNIQUE INDEX old_unique_dedup ON messages(dedup)")
    add_fork(folder)
    index = Index(db)
    summary = index.update(roots(tmp_path), now=FIXED_NOW)
    assert summary.messages_added == 3  # the fork's copies of both, and its own prompt
    assert [m.text for m in index.messages(index.session(FORK))] == [t for _, _, t in SHARED] + ["Make it absolute then"]
    assert [h.message.text for h in index.search("invoice logo", now=FIXED_NOW).hits] == [SHARED[0][2]]
    index.close()
    assert keys_match_messages(db)


def test_a_log_read_again_from_its_start_gives_back_the_keys_of_its_rows(tmp_path: Path):
    """A rewritten log's rows go and come back under new ids: the table follows, and a fork
    read afterwards still finds their new owners."""
    folder = logs(tmp_path)
    index = Index(tmp_path / "index.sqlite3")
    index.update(roots(tmp_path), now=FIXED_NOW)
    # A different head (read from the start) and the answer gone: its key must go with it.
    write(folder / f"{ORIGINAL}.jsonl", [record("u0", "user", "Print the invoice again", ORIGINAL),
                                        record(*SHARED[0], ORIGINAL)])
    index.update(roots(tmp_path), now=FIXED_NOW)
    assert keys_match_messages(tmp_path / "index.sqlite3")
    add_fork(folder)  # holds the answer the origin lost: stored and searchable in the fork
    index.update(roots(tmp_path), now=FIXED_NOW)
    found = {h.message.text: h.session.session_id for h in index.search("logo", now=FIXED_NOW).hits}
    assert found == {SHARED[0][2]: ORIGINAL, SHARED[1][2]: FORK}
    index.close()
    assert keys_match_messages(tmp_path / "index.sqlite3")


def test_a_log_that_fails_after_its_rows_went_leaves_the_other_logs_keys(tmp_path: Path, monkeypatch):
    """A log read again from its start loses its rows, then fails: its savepoint is rolled back.
    The keys of the logs stored before it in the same commit must still be written."""
    import os

    from indexer.ingest.writer import Ingester

    folder = logs(tmp_path)
    index = Index(tmp_path / "index.sqlite3")
    index.update(roots(tmp_path), now=FIXED_NOW)
    write(folder / f"{ORIGINAL}.jsonl", [record("u0", "user", "Print the invoice again", ORIGINAL)])  # read from its start
    add_fork(folder)
    os.utime(folder / f"{ORIGINAL}.jsonl", (1_700_000_000, 1_700_000_000))  # the fork, newer, is stored first
    real = Ingester._insert_touches

    def failing(self, session_rowid, file_id, prepared):
        if prepared.job.key.endswith(f"{ORIGINAL}.jsonl"):
            raise ValueError("a line this version cannot store")
        return real(self, session_rowid, file_id, prepared)

    monkeypatch.setattr(Ingester, "_insert_touches", failing)
    summary = index.update(roots(tmp_path), now=FIXED_NOW)
    assert any("cannot store" in p for p in summary.problems)
    index.close()
    assert keys_match_messages(tmp_path / "index.sqlite3")


def test_a_first_build_committing_between_a_log_and_its_fork_stores_the_copies_once(tmp_path: Path, monkeypatch):
    """A first build keeps a filter of the keys it stored and looks up only those it holds: a
    fork stored after a commit that wrote its origin's keys must still find them there."""
    import os

    from indexer.ingest import side

    monkeypatch.setattr(side, "BATCH_SECONDS", 0.0)  # a commit after every log
    folder = logs(tmp_path)
    add_fork(folder)
    os.utime(folder / f"{FORK}.jsonl", (1_700_000_000, 1_700_000_000))  # newest first: the origin, then the fork
    index = Index(tmp_path / "index.sqlite3")
    index.update(roots(tmp_path), now=FIXED_NOW)
    assert [m.text for m in index.messages(index.session(FORK))] == [t for _, _, t in SHARED] + ["Make it absolute then"]
    assert [h.message.text for h in index.search("invoice logo", now=FIXED_NOW).hits] == [SHARED[0][2]]
    index.close()
    assert keys_match_messages(tmp_path / "index.sqlite3")


def test_the_filter_of_stored_keys_never_hides_one(tmp_path: Path, monkeypatch):
    """Whether a key is stored, asked of an empty table (the filter kept), of one that holds keys
    (none kept) and once the filter is too full (dropped): always the table's answer."""
    import random

    from indexer.store import dedup_keys
    from indexer.store.dedup_keys import DedupKeys
    from indexer.store.schema import DEDUP_KEYS_TABLE

    monkeypatch.setattr(dedup_keys, "FILTER_MAX_BITS", 1 << 16)  # 6,553 keys fill it
    rng = random.Random(7)
    with closing(sqlite3.connect(tmp_path / "keys.sqlite3")) as conn:
        conn.execute(DEDUP_KEYS_TABLE)
        keys = DedupKeys()
        keys.start_filter(conn, 10**9)
        stored: list[int] = []
        for batch in range(4):  # 4 commits of 2,000 keys: the filter is dropped at the fourth
            new = [rng.getrandbits(64) - (1 << 63) for _ in range(2000)]
            keys.add_all(new, 1 + len(stored))
            keys.keep_file()
            keys.flush(conn)
            stored += new
            unseen = [rng.getrandbits(64) - (1 << 63) for _ in range(2000)]
            assert not keys.any_known(conn, unseen)
            assert all(keys.any_known(conn, [key]) for key in rng.sample(stored, 300))
        assert keys._filter is None
        again = DedupKeys()
        again.start_filter(conn, 10**9)  # the table holds keys: no filter, every key looked up
        assert again._filter is None and again.any_known(conn, [stored[-1]])

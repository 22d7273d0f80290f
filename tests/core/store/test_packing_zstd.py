"""Tool output packed with zstd and the index's own dictionary (schema 10, issue 18): what is
stored reads back exactly, old zlib values stay readable, the helper process packs with the
same dictionary, and a damaged value or a missing dictionary reads as one placeholder line.
Built without the archive: with it, tool output is a reference into the log instead
(``tests/core/ingest/test_log_refs.py``)."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import zlib
from pathlib import Path

import pytest

from bench.speed.bench_index import claude_session as generated_session
from indexer import Index, only_roots
from indexer.store.schema import SCHEMA_VERSION
from indexer.upkeep import pack_training
from indexer.ingest import stream as ingest
from indexer.store import packing
from indexer.store.pack_dictionary import train_dictionary

from conftest import FIXED_NOW

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def write_tree(root: Path, sessions: int, size: int, seed: int = 3, first: int = 0) -> Path:
    rng = random.Random(seed)
    folder = root / "-home-dev-proj"
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(first, first + sessions):
        sid = f"{n:08x}-0000-4000-8000-{n:012x}"
        (folder / f"{sid}.jsonl").write_bytes(generated_session(rng, sid, "/home/dev/proj", size, FIXED_NOW - 86400 + n))
    return root


def tool_results_in(root: Path) -> list[str]:
    """Every tool result the logs hold, as written."""
    out = []
    for path in sorted(root.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            content = json.loads(line)["message"]["content"]
            if isinstance(content, list) and content[0].get("type") == "tool_result":
                out.append(content[0]["content"])
    return out


def zlib_transcripts(root: Path, db: Path, monkeypatch) -> list[str]:
    """The tool outputs as an index without a dictionary (zlib, as before schema 10) shows them."""
    with monkeypatch.context() as patch:
        patch.setattr(pack_training, "MIN_SAMPLES", 10**9)
        index = build(root, db)
    assert all(v[:1] == b"\x78" for v in stored_outputs(index))
    texts = transcript_outputs(index)
    index.close()
    return sorted(texts)


def build(root: Path, db: Path) -> Index:
    index = Index(db)
    index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW, archive=False)
    return index


def stored_outputs(index: Index) -> list[bytes]:
    return [r[0] for r in index.conn.execute("SELECT text FROM messages WHERE indexed IN (0, 3) AND typeof(text) = 'blob'")]


def transcript_outputs(index: Index) -> list[str]:
    from indexer.store import browse

    texts = []
    for (rowid,) in index.conn.execute("SELECT id FROM sessions ORDER BY session_id"):
        texts += [m.text for m in browse.messages(index.conn, rowid) if m.kind == "tool_result"]
    return texts


def frame_dictionary(value: bytes) -> int:
    import zstandard

    return zstandard.get_frame_parameters(value).dict_id


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory) -> Path:
    return write_tree(tmp_path_factory.mktemp("packing") / "logs", sessions=5, size=400_000)


def test_an_index_packs_with_its_own_dictionary_and_reads_back_exactly(big_tree, tmp_path, monkeypatch):
    index = build(big_tree, tmp_path / "index.sqlite3")
    dictionaries = index.conn.execute("SELECT id FROM pack_dictionaries").fetchall()
    assert len(dictionaries) == 1
    stored = stored_outputs(index)
    assert stored and all(v[:4] == ZSTD_MAGIC and frame_dictionary(v) == dictionaries[0][0] for v in stored)
    assert sorted(transcript_outputs(index)) == zlib_transcripts(big_tree, tmp_path / "zlib.sqlite3", monkeypatch)
    index.close()


def test_the_helper_process_packs_with_the_same_dictionary(big_tree, tmp_path, monkeypatch):
    used = []
    from indexer.ingest import helper  # the stream loads it when a run starts one

    real = helper.HelperProcess

    def counting_helper(*args):
        used.append(args)
        return real(*args)

    monkeypatch.setattr(ingest, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(helper, "HelperProcess", counting_helper)
    index = build(big_tree, tmp_path / "index.sqlite3")
    assert used and used[0][2] != 0, "the helper was not started with the dictionary"
    (dictionary,) = index.conn.execute("SELECT id FROM pack_dictionaries").fetchone()
    assert {frame_dictionary(v) for v in stored_outputs(index)} == {dictionary}
    monkeypatch.setattr(ingest, "PARALLEL_MIN_BYTES", 10**12)
    assert sorted(transcript_outputs(index)) == zlib_transcripts(big_tree, tmp_path / "zlib.sqlite3", monkeypatch)
    index.close()


def test_a_small_history_keeps_zlib_until_there_is_enough_to_train_on(tmp_path, monkeypatch):
    small = write_tree(tmp_path / "logs", sessions=1, size=30_000)
    index = build(small, tmp_path / "index.sqlite3")
    assert index.conn.execute("SELECT count(*) FROM pack_dictionaries").fetchone()[0] == 0
    stored = stored_outputs(index)
    assert stored and all(v[:1] == b"\x78" for v in stored)
    # More history arrives: the next run trains on what is stored and what it reads.
    write_tree(tmp_path / "logs", sessions=5, size=400_000, seed=9, first=1)
    index.update(only_roots({"claude-code": [small]}), now=FIXED_NOW, archive=False)
    kinds = {bytes(v[:4]) == ZSTD_MAGIC for v in stored_outputs(index)}
    assert kinds == {True, False}, "old zlib values stay, new ones are zstd"
    assert sorted(transcript_outputs(index)) == zlib_transcripts(small, tmp_path / "zlib.sqlite3", monkeypatch)
    index.close()


def test_zlib_values_from_older_indexes_stay_readable():
    text = "line of tool output\n" * 40
    assert packing.unpack(zlib.compress(text.encode(), 1)) == text
    assert packing.unpack("short text stays text") == "short text stays text"
    assert packing.unpack(None) is None


def test_a_damaged_value_or_a_missing_dictionary_is_a_placeholder_not_a_traceback(big_tree, tmp_path):
    index = build(big_tree, tmp_path / "index.sqlite3")
    conn = index.conn
    rowid, value = conn.execute(
        "SELECT id, text FROM messages WHERE indexed IN (0, 3) AND typeof(text) = 'blob' LIMIT 1").fetchone()
    damaged = value[:12] + bytes(b ^ 0xFF for b in value[12:40]) + value[40:]
    assert packing.unpack(damaged, conn) == "[stored text could not be read: its stored bytes are damaged]"
    assert packing.unpack(b"\x78\x01garbage", conn) == "[stored text could not be read: its stored bytes are damaged]"
    # A value naming a dictionary that no index holds (a copied row, a lost table).
    other = train_dictionary([t.encode() for t in tool_results_in(big_tree)][:500])
    assert other is not None
    import zstandard

    foreign = zstandard.ZstdCompressor(dict_data=zstandard.ZstdCompressionDict(other.data)).compress(b"x" * 300)
    assert packing.unpack(foreign, conn) == (
        f"[stored text could not be read: compression dictionary {other.id} is missing from this index]")
    # And in a transcript, through the same path as the app and `show`.
    conn.execute("UPDATE messages SET text = ? WHERE id = ?", (foreign, rowid))
    from indexer.store import browse

    assert browse.message(conn, rowid).text.startswith("[stored text could not be read: compression dictionary")
    index.close()


def test_an_index_from_schema_9_is_upgraded_and_its_zlib_values_still_read(big_tree, tmp_path):
    db = tmp_path / "index.sqlite3"
    index = build(big_tree, db)
    expected = sorted(transcript_outputs(index))
    # Make it what schema 9 wrote: zlib values, no dictionary table.
    rows = index.conn.execute("SELECT id, text FROM messages WHERE indexed IN (0, 3) AND typeof(text) = 'blob'").fetchall()
    index.conn.executemany("UPDATE messages SET text = ? WHERE id = ?",
                           [(zlib.compress(packing.unpack(v, index.conn).encode(), 1), i) for i, v in rows])
    index.conn.execute("DROP TABLE pack_dictionaries")
    index.conn.execute("PRAGMA user_version = 9")
    index.close()
    upgraded = Index(db)
    upgraded.update(only_roots({"claude-code": [big_tree]}), now=FIXED_NOW, archive=False)
    assert upgraded.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert sorted(transcript_outputs(upgraded)) == expected
    upgraded.close()
    side = sqlite3.connect(db)
    assert side.execute("SELECT count(*) FROM pack_dictionaries").fetchone()[0] == 0, "nothing new to pack"
    side.close()


def test_a_search_that_hits_a_tool_call_does_not_load_zstandard(big_tree, tmp_path):
    """Tool-call details travel with a hit and stay zlib: only tool output is zstd."""
    import subprocess
    import sys

    from cli_process import REPO, cli_env

    logs = tmp_path / "logs"
    shutil.copytree(big_tree, logs)
    call = {"type": "assistant", "uuid": "call-1", "sessionId": "s-call", "cwd": "/home/dev/proj",
            "timestamp": "2026-06-30T10:00:00Z", "message": {"id": "msg_call", "role": "assistant", "model": "claude-x",
            "content": [{"type": "tool_use", "id": "toolu_call", "name": "Bash",
                         "input": {"command": "grep -rn quuxfrobnicate src/ " + "--include=*.py " * 30}}]}}
    (logs / "-home-dev-proj" / "s-call.jsonl").write_text(json.dumps(call) + "\n", encoding="utf-8")
    db = tmp_path / "index.sqlite3"
    build(logs, db).close()
    conn = sqlite3.connect(db)
    details = conn.execute("SELECT detail FROM messages WHERE text LIKE '%quuxfrobnicate%'").fetchall()
    conn.close()
    assert details and all(isinstance(d, bytes) and d[:1] == b"\x78" for (d,) in details)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "tui.cli", "search", "quuxfrobnicate", "--db", str(db)],
                          capture_output=True, text=True, env=cli_env(), cwd=REPO, timeout=60)
    assert proc.returncode == 0 and "quuxfrobnicate" in proc.stdout
    assert "zstandard" not in {line.rsplit("|", 1)[1].strip().split(".")[0]
                               for line in proc.stderr.splitlines() if line.startswith("import time:") and "|" in line}



def test_a_run_with_nothing_new_leaves_the_dictionary_alone(big_tree, tmp_path, monkeypatch):
    """A no-change run (a hook's refresh, most of the time) only stats files: it does not read
    the dictionary or build a compressor."""
    index = build(big_tree, tmp_path / "index.sqlite3")

    def no(*args):
        raise AssertionError("the dictionary was read on a run with nothing to pack")

    monkeypatch.setattr(pack_training, "newest_dictionary", no)
    summary = index.update(only_roots({"claude-code": [big_tree]}), now=FIXED_NOW, archive=False)
    assert summary.messages_added == 0 and summary.files_seen == 5
    index.close()

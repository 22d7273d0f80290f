"""A log written as one JSON document (here Gemini's chat files) is rewritten whole every turn: its
messages stored as they are keep their ids and index entries, and only what changed is stored
again (indexer.ingest.kept_rows)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Callable

from indexer import Index, only_roots
from indexer.ingest.progress import IndexSummary

from conftest import FIXED_NOW

WORDS = ["alder", "birch", "cedar", "dogwood", "elm", "fir", "ginkgo", "hazel", "ilex", "juniper", "larch", "maple"]


def _message(i: int, word: str | None = None) -> dict:
    text = f"heron notes, part {i}: the {word or WORDS[i % len(WORDS)]}{i} grove"
    return {"id": f"m{i}", "timestamp": f"2024-01-01T10:{i // 60:02d}:{i % 60:02d}Z",
            "type": "user" if i % 2 == 0 else "gemini", "content": text}


def _write(home: Path, messages: list[dict]) -> Path:
    chats = home / "tmp" / "abc123def456" / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    (chats.parent / ".project_root").write_text("/w/grove")
    log = chats / "session-2024-01-01T10-00-grove.json"
    log.write_text(json.dumps({"sessionId": "grove-1", "projectHash": "abc123def456", "startTime": "2024-01-01T10:00:00Z",
                               "lastUpdated": "2024-01-01T11:00:00Z", "messages": messages}, indent=2))
    return log


def _ids(index: Index) -> list[int]:
    return [r[0] for r in index.conn.execute("SELECT id FROM messages ORDER BY ordinal")]


def _word_index_entries(index: Index, word: str) -> int:
    """Entries for ``word`` in the side file's word index, those of removed messages included."""
    return index.conn.execute("SELECT count(*) FROM side.words WHERE words MATCH ?", (word,)).fetchone()[0]


def _found(index: Index, word: str) -> bool:
    return bool(index.search(word, now=FIXED_NOW, closest=False).hits)


def _rewritten(tmp_path: Path, rewrite: Callable[[list[dict]], list[dict]]) -> tuple[Index, list[int], IndexSummary]:
    """A 30-message session indexed, then its document written again as ``rewrite`` makes it
    and indexed again: the open index, the message ids before, the second run's summary."""
    home = tmp_path / "gemini"
    messages = [_message(i) for i in range(30)]
    _write(home, messages)
    roots = only_roots({"gemini": [home / "tmp"]})
    index = Index(tmp_path / "i.sqlite3")
    index.update(roots, now=FIXED_NOW)
    ids = _ids(index)
    _write(home, rewrite(messages))
    return index, ids, index.update(roots, now=FIXED_NOW)


def test_a_document_rewritten_with_one_more_message_stores_that_one_alone(tmp_path):
    index, ids, summary = _rewritten(tmp_path, lambda messages: [*messages, _message(30, "sequoia")])
    with index:
        assert (summary.files_reindexed, summary.messages_added) == (1, 1)
        assert _ids(index)[:30] == ids and len(_ids(index)) == 31
        assert _found(index, "sequoia30") and _found(index, "alder0")
        assert _word_index_entries(index, "heron") == 31  # 61 when every message was stored again
        assert index.session("grove-1").message_count == 31


def test_a_message_changed_inside_the_document_is_stored_again_from_there(tmp_path):
    index, ids, summary = _rewritten(tmp_path, lambda messages: [*messages[:10], _message(10, "willow"), *messages[11:]])
    with index:
        assert summary.messages_added == 20
        now = _ids(index)
        assert now[:10] == ids[:10] and not set(now[10:]) & set(ids) and len(now) == 30
        assert _found(index, "willow10") and not _found(index, "ilex10") and _found(index, "ilex20")
        assert index.session("grove-1").message_count == 30


def test_a_document_that_lost_its_last_messages_keeps_the_rest(tmp_path):
    index, ids, summary = _rewritten(tmp_path, lambda messages: messages[:20])
    with index:
        assert summary.messages_added == 0
        assert _ids(index) == ids[:20]
        assert not _found(index, "juniper21") and _found(index, "juniper9")
        assert index.session("grove-1").message_count == 20
        assert index.stats().messages == 20


def test_past_the_bound_on_prints_held_a_document_is_stored_again_whole(tmp_path, monkeypatch):
    monkeypatch.setattr("indexer.ingest.writer.PRINTS_HELD_BYTES", 0)
    index, ids, summary = _rewritten(tmp_path, lambda messages: [*messages, _message(30, "sequoia")])
    with index:
        assert summary.messages_added == 31
        assert not set(_ids(index)) & set(ids) and _found(index, "sequoia30") and _found(index, "alder0")


def test_tool_output_kept_as_a_reference_into_the_document_still_reads_back(tmp_path):
    """With the archive on, a tool's output is stored as a reference to its bytes in the log:
    kept, it must still read back from the rewritten document."""
    home = tmp_path / "gemini"
    output = "\n".join(f"line {n}: the heron grove report, sector {n}" for n in range(40))
    call = {"id": "c1", "name": "run_command", "args": {"command": "cat grove.txt"}, "status": "success",
            "result": [{"functionResponse": {"id": "c1", "name": "run_command", "response": {"output": output}}}]}
    messages = [_message(0), {**_message(1), "toolCalls": [call]}, _message(2)]
    _write(home, messages)
    roots = only_roots({"gemini": [home / "tmp"]})
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW, archive=True)
        before = [(m.id, m.kind, m.text) for m in index.messages(index.session("grove-1"))]
        assert any(output in text for _, _, text in before)
        assert index.conn.execute("SELECT count(*) FROM messages WHERE typeof(text) = 'blob'").fetchone()[0]
        _write(home, [*messages, _message(3, "sequoia")])
        assert index.update(roots, now=FIXED_NOW, archive=True).messages_added == 1
        after = [(m.id, m.kind, m.text) for m in index.messages(index.session("grove-1"))]
        assert after[:len(before)] == before and len(after) == len(before) + 1



def test_any_run_of_rewrites_leaves_what_a_fresh_index_of_the_last_document_holds(tmp_path):
    """Messages added, changed, dropped and cut off in turn: after each rewrite the session reads
    as a fresh index of that document reads, and each message's own word finds it."""
    rng = random.Random(7)
    home = tmp_path / "gemini"
    roots = only_roots({"gemini": [home / "tmp"]})
    messages = [_message(i) for i in range(12)]
    serial = 100
    with Index(tmp_path / "i.sqlite3") as index:
        for turn in range(8):
            op = turn % 4
            if op == 0:  # more messages
                messages += [_message(serial + k, "sequoia") for k in range(rng.randint(1, 3))]
            elif op == 1:  # one changed
                messages[rng.randrange(len(messages))] = _message(serial, "willow")
            elif op == 2:  # one dropped from the middle
                del messages[rng.randrange(len(messages))]
            else:  # the last few cut off
                messages = messages[: max(1, len(messages) - rng.randint(1, 3))]
            serial += 10
            _write(home, messages)
            index.update(roots, now=FIXED_NOW)
            fresh_db = tmp_path / f"fresh{turn}.sqlite3"
            with Index(fresh_db) as fresh:
                fresh.update(roots, now=FIXED_NOW)
                expected = [(m.role, m.kind, m.text) for m in fresh.messages(fresh.session("grove-1"))]
            got = [(m.role, m.kind, m.text) for m in index.messages(index.session("grove-1"))]
            assert got == expected, f"turn {turn}"
            assert index.session("grove-1").message_count == len(messages) == index.stats().messages
            for m in messages:
                word = m["content"].split(" the ")[1].split()[0]
                assert _found(index, word), (turn, word)

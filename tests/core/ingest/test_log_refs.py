"""Tool output kept as a reference into its log (issue 18's size target): every transcript reads
exactly as it did when the index kept a packed copy, the log's archived copy serves it once the
agent deleted the log, and a reference nothing can serve any more reads as a one-line
placeholder, never as other text."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.archive.ranges import clear_range_cache
from indexer.archive.manifest import manifest_path
from indexer.ingest.log_refs import _literal, _written_as_we_would, reference_for
from indexer.ingest.sanitise import sanitise_message
from indexer.sources import PARSERS
from indexer.sources.base import SessionMeta
from indexer.store.log_ref import LogRef
from indexer.store.log_ref_reader import forget_texts_read
from indexer.store.rows import stored_text
from indexer.store.packing import UNREADABLE, unpack
from indexer.text.clip import CUT_MARKER, cut_middle

from cli_process import threadback
from conftest import CORPUS, FIXED_NOW

SID = "5e55a0b1-0000-4000-8000-000000000001"
QUOTED = 'def f():\n    return "x\\\\y"\t# 資料庫 ✓ 🎉 \x1b[31mred\x1b[0m\n' * 20
LONG = "".join(f"line {i}: the build step {i} passed \"ok\"\n" for i in range(400))  # cut to head + tail
OUTPUTS = [
    ("plain", QUOTED, {}),
    ("cut", LONG, {}),
    ("error", "Traceback: something failed badly\n" * 12, {"is_error": True}),
    ("two blocks", [{"type": "text", "text": "first block " * 30}, {"type": "text", "text": "second " * 40}], {}),
    ("ascii escaped", "naïve café 資料 " * 30, {}),
]


def _write_session(root: Path, *, ascii_escaped_last: bool = True) -> Path:
    """A Claude session whose tool results take every shape the parser stores."""
    log = root / "-w-demo" / f"{SID}.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "user", "uuid": "u0", "sessionId": SID, "cwd": "/w/demo", "timestamp": "2026-03-01T10:00:00Z",
              "message": {"role": "user", "content": "run every step"}}]
    for i, (name, content, extra) in enumerate(OUTPUTS):
        ts = f"2026-03-01T10:{i + 1:02d}:00Z"
        lines.append({"type": "assistant", "uuid": f"a{i}", "sessionId": SID, "cwd": "/w/demo", "timestamp": ts,
                      "message": {"id": f"msg{i}", "role": "assistant", "model": "claude-x", "content": [
                          {"type": "tool_use", "id": f"tu{i}", "name": "Bash", "input": {"command": f"step {name}"}}]}})
        lines.append({"type": "user", "uuid": f"r{i}", "sessionId": SID, "cwd": "/w/demo", "timestamp": ts,
                      "message": {"role": "user", "content": [
                          {"type": "tool_result", "tool_use_id": f"tu{i}", "content": content, **extra}]},
                      "toolUseResult": {"stdout": content if isinstance(content, str) else "", "stderr": ""}})
    with open(log, "w", encoding="utf-8") as fh:
        for n, line in enumerate(lines):
            fh.write(json.dumps(line, ensure_ascii=ascii_escaped_last and n == len(lines) - 1) + "\n")
    return log


def _index(db: Path, root: Path, *, archive: bool) -> None:
    with Index(db) as index:
        index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW, archive=archive)


def _transcript(db: Path) -> list[str]:
    """The session's texts as a fresh process reads them (nothing read back before is reused)."""
    forget_texts_read()
    clear_range_cache()
    with Index(db) as index:
        return [m.text for m in index.messages(index.session(SID))]


def _stored(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        kinds = conn.execute(
            "SELECT CASE WHEN substr(text, 1, 4) = X'54425201' THEN 'reference'"
            " WHEN typeof(text) = 'blob' THEN 'packed' ELSE 'text' END, count(*) FROM messages GROUP BY 1").fetchall()
    finally:
        conn.close()
    return dict(kinds)


def test_the_cut_marker_is_pinned():
    """References rebuild cut output with this function: its output must never change."""
    cut = cut_middle("a" * 2000 + "b" * 200 + "c" * 800, 2000, 800)
    assert cut == "a" * 2000 + "\n…[200 characters omitted]…\n" + "c" * 800
    assert CUT_MARKER.search(cut).start() == 2000


def test_transcripts_read_the_same_as_with_packed_copies(tmp_path):
    root = tmp_path / "logs"
    _write_session(root)
    _index(tmp_path / "packed.sqlite3", root, archive=False)
    _index(tmp_path / "refs.sqlite3", root, archive=True)
    packed, refs = _transcript(tmp_path / "packed.sqlite3"), _transcript(tmp_path / "refs.sqlite3")
    assert refs == packed
    assert any(CUT_MARKER.search(t) for t in refs) and any(t.startswith("[error] ") for t in refs)
    assert not any(t.startswith(UNREADABLE) for t in refs)
    # Every single-string output became a reference; the two joined blocks stay packed.
    assert _stored(tmp_path / "refs.sqlite3").get("reference") == 4
    assert _stored(tmp_path / "refs.sqlite3").get("packed") == 1
    assert "reference" not in _stored(tmp_path / "packed.sqlite3")


@pytest.mark.parametrize("copies", ["linked", "frames"])
def test_a_deleted_log_still_shows_its_tool_output(tmp_path, request, copies):
    if copies == "frames":
        request.getfixturevalue("frames_only")
    root = tmp_path / "logs"
    log = _write_session(root)
    db = tmp_path / "i.sqlite3"
    _index(db, root, archive=True)
    before = _transcript(db)
    log.unlink()
    _index(db, root, archive=True)  # the log is gone: a linked copy is sealed into frames
    assert _transcript(db) == before
    shown = threadback("--db", str(db), "show", SID, "--full")
    assert shown.returncode == 0 and "line 399: the build step 399 passed" in shown.stdout


@pytest.mark.parametrize("copies", ["linked", "frames"])
def test_output_appended_later_points_at_its_place_in_the_whole_log(tmp_path, request, copies):
    """A run reads only what was appended: its references are offsets in the whole log."""
    if copies == "frames":
        request.getfixturevalue("frames_only")
    root = tmp_path / "logs"
    log = _write_session(root, ascii_escaped_last=False)
    _index(tmp_path / "refs.sqlite3", root, archive=True)
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "user", "uuid": "late", "sessionId": SID, "cwd": "/w/demo",
                             "timestamp": "2026-03-01T11:00:00Z", "message": {"role": "user", "content": [
                                 {"type": "tool_result", "tool_use_id": "tu0", "content": "appended output " * 40}]}},
                            ensure_ascii=False) + "\n")
    _index(tmp_path / "refs.sqlite3", root, archive=True)
    _index(tmp_path / "packed.sqlite3", root, archive=False)
    refs = _transcript(tmp_path / "refs.sqlite3")
    assert refs == _transcript(tmp_path / "packed.sqlite3") and refs[-1] == "appended output " * 40
    assert _stored(tmp_path / "refs.sqlite3").get("reference") == 5


def test_without_the_archive_the_log_itself_serves_and_a_changed_log_is_a_placeholder(tmp_path):
    root = tmp_path / "logs"
    log = _write_session(root)
    db = tmp_path / "i.sqlite3"
    _index(db, root, archive=True)
    before = _transcript(db)
    manifest_path(tmp_path / "archive", str(log)).write_text("{not json", encoding="utf-8")
    assert _transcript(db) == before  # a damaged archive: read from the log where it still is
    shutil.rmtree(tmp_path / "archive")
    assert _transcript(db) == before
    data = log.read_bytes()
    log.write_bytes(data.replace(b"the build step 1 passed", b"the build step X passed"))  # same length
    after = _transcript(db)
    changed = [a for a, b in zip(after, before) if a != b]
    assert len(changed) == 1 and changed[0].startswith(UNREADABLE) and "neither the log nor its archived copy" in changed[0]
    shown = threadback("--db", str(db), "show", SID, "--full")
    assert shown.returncode == 0 and "Traceback" not in shown.stderr and UNREADABLE in shown.stdout


def test_a_text_read_back_once_is_not_read_again_in_that_process(tmp_path):
    """The app reads a live session's transcript again at each new line: each tool output is
    read from its log once (the log removed after, as if gone with no archive left)."""
    root = tmp_path / "logs"
    log = _write_session(root)
    db = tmp_path / "i.sqlite3"
    _index(db, root, archive=True)
    first = _transcript(db)
    shutil.rmtree(tmp_path / "archive")
    log.unlink()
    with Index(db) as index:
        assert [m.text for m in index.messages(index.session(SID))] == first
    assert any(t.startswith(UNREADABLE) for t in _transcript(db))  # a fresh process cannot read them


def test_a_reference_rebuilds_only_the_bytes_it_was_made_from():
    line = json.dumps({"content": "some output " * 40}).encode()
    encoded = reference_for("some output " * 40, line, (0, len(line)), 100)
    ref = LogRef.decode(encoded)
    raw = line[ref.offset - 100:ref.offset - 100 + ref.length]
    assert ref.rebuild(raw) == "some output " * 40
    assert ref.rebuild(raw.replace(b"some", b"SOME", 1)) is None
    assert stored_text(encoded[:10], None, 1).startswith(UNREADABLE)  # damaged: a placeholder, no exception
    assert stored_text(encoded, None, None).startswith(UNREADABLE)  # no index to say which log
    assert unpack(encoded).startswith(UNREADABLE)  # read as packed text: never decompressed


def test_the_literal_looked_for_is_written_as_the_stdlib_writes_it():
    """A whole output is found by its literal (orjson's): every character written as
    ``json.dumps(ensure_ascii=False)`` writes it, a lone surrogate too (orjson refuses it)."""
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    for text in (every, every[:200], 'say "hi"\\\n\t\x00\x1f\x7f\u2028 資料 🎉', "half \ud83d pair"):
        assert _literal(text) == json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")
    line = json.dumps({"content": "lone \udc80 surrogate " * 20}, ensure_ascii=False).encode("utf-8", "surrogatepass")
    ref = LogRef.decode(reference_for("lone \udc80 surrogate " * 20, line, (0, len(line)), 0))
    assert ref.rebuild(line[ref.offset:ref.offset + ref.length]) == "lone \udc80 surrogate " * 20


@pytest.mark.parametrize("start, end", [("資料 ✓ \"q\"\\ ", " 🎉 end\t"), ("lone \udc80 ", " pair \ud83d"), ("", "only a tail " * 3)])
def test_a_cut_output_is_found_by_its_head_and_tail_without_decoding_the_line(start, end):
    """The common cut output (written as agents write it) is found by its first and last
    characters' literals alone; decoding the line is for other writings."""
    whole = start + "middle line\n" * 2000 + end
    text = cut_middle(whole, len(start) or 1, len(end))
    body_cut = CUT_MARKER.search(text)
    head, tail = body_cut.start(), len(text) - body_cut.end()
    line = json.dumps({"content": whole}, ensure_ascii=False).encode("utf-8", "surrogatepass")
    found = _written_as_we_would(text, text, "", head, tail, line, (0, len(line)))
    assert found is not None
    at, ref = found
    assert ref.rebuild(line[at:at + ref.length]) == text


def _corpus_outputs(agent: str):
    for path in sorted((CORPUS / agent).rglob("*.jsonl")):
        data = path.read_bytes()
        parsed = PARSERS[agent].parse(path, data, 1, {}, SessionMeta())
        for m in parsed.messages:
            sanitise_message(m)
            if not m.indexed and len(m.text) >= 256 and m.span is not None:
                yield m, data


@pytest.mark.parametrize("agent", ["claude-code", "codex", "pi"])
def test_the_corpus_tool_output_is_kept_as_references_that_rebuild_it(agent):
    """Real logs of each agent: the parser's spans find each output's string (once escaped, or
    twice for Codex), and each reference rebuilds the very text parsed."""
    outputs = made = 0
    for m, data in _corpus_outputs(agent):
        outputs += 1
        encoded = reference_for(m.text, data, m.span, 0)
        if encoded is None:
            continue
        made += 1
        ref = LogRef.decode(encoded)
        assert ref.rebuild(data[ref.offset:ref.offset + ref.length]) == m.text
    assert outputs >= 5
    assert made >= 0.9 * outputs, f"{agent}: {made} of {outputs} outputs kept as references"


def test_compact_replaces_an_older_index_packed_output_by_references(tmp_path, monkeypatch):
    """An index from before references (tool output packed, the archive on): ``index --compact``
    leaves it as a new build would be, every transcript reading the same, the file smaller."""
    root = tmp_path / "logs"
    log = _write_session(root)
    db = tmp_path / "i.sqlite3"
    with monkeypatch.context() as patched:  # what an index run did before references existed
        patched.setattr("indexer.ingest.prepare.reference_for", lambda *args: None)
        _index(db, root, archive=True)
    assert "reference" not in _stored(db) and _stored(db)["packed"] == 5
    before = _transcript(db)
    done = threadback("--db", str(db), "index", "--compact", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outputs_referred"] == 4
    assert _stored(db) == {"reference": 4, "packed": 1, "text": 6}
    assert _transcript(db) == before
    log.unlink()  # the agent deletes the log: the archive serves what the references name
    _index(db, root, archive=True)
    assert _transcript(db) == before
    again = threadback("--db", str(db), "index", "--compact", "--json")  # nothing left to replace
    assert again.returncode == 0 and json.loads(again.stdout)["outputs_referred"] == 0


def test_compact_with_the_archive_off_keeps_packed_output(tmp_path, private_threadback_home, monkeypatch):
    root = tmp_path / "logs"
    _write_session(root)
    db = tmp_path / "i.sqlite3"
    with monkeypatch.context() as patched:
        patched.setattr("indexer.ingest.prepare.reference_for", lambda *args: None)
        _index(db, root, archive=True)
    (private_threadback_home / "config.toml").write_text("[archive]\nenabled = false\n", encoding="utf-8")
    done = threadback("--db", str(db), "index", "--compact", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["outputs_referred"] == 0
    assert _stored(db)["packed"] == 5


def test_compact_cuts_a_copy_sealed_as_one_big_frame(tmp_path, frames_only, monkeypatch):
    """A copy sealed before frames were cut: references into it would decompress all of it each
    time, so compact cuts it into frames first, and the transcript reads the same."""
    from indexer.archive.manifest import load_manifest
    from indexer.upkeep.compact import compact_index

    root = tmp_path / "logs"
    log = _write_session(root)
    db = tmp_path / "i.sqlite3"
    with monkeypatch.context() as patched:
        patched.setattr("indexer.ingest.prepare.reference_for", lambda *args: None)
        _index(db, root, archive=True)
    before = _transcript(db)
    assert len(load_manifest(manifest_path(tmp_path / "archive", str(log)), str(log)).frames) == 1
    monkeypatch.setattr("indexer.archive.writer.FRAME_BYTES", 4096)  # the log is ~44 KB
    assert compact_index(db).outputs_referred == 4
    frames = load_manifest(manifest_path(tmp_path / "archive", str(log)), str(log)).frames
    assert len(frames) > 1 and all(f.raw_length <= 4096 for f in frames)
    assert _transcript(db) == before

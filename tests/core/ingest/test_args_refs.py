"""A tool call's arguments kept as a reference into its log (issue 18's size target), as tool
output is: every transcript, export and search reads exactly what it read when the index kept a
packed copy, the archive serves them once the log is gone, a changed log gives a placeholder
(never other arguments), and arguments a reference cannot rebuild stay packed."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.archive.ranges import clear_range_cache
from indexer.export.collect import collect_export
from indexer.store.log_ref_reader import forget_texts_read
from indexer.store.packing import UNREADABLE
from tui.session_export import render_export

from conftest import CORPUS, FIXED_NOW

SID = "a7c5a7c5-0000-4000-8000-000000000001"
SCRIPT = "cat <<'EOF'\n" + "".join(f"step {i}: naïve \"quoted\" \\ back\ttab 資料 ✓\n" for i in range(30)) + "EOF"
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
FILLER = "x" * 300


def _compact(value: object) -> str:
    """A value as Claude Code and Pi write it (JavaScript's ``JSON.stringify``)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _call_line(i: int, args_json: str, *, name: str = "Bash") -> str:
    """An assistant line holding one tool call whose ``input`` is written as ``args_json``."""
    head = {"type": "assistant", "uuid": f"a{i}", "sessionId": SID, "cwd": "/w/demo",
            "timestamp": f"2026-03-01T10:{i:02d}:00Z",
            "message": {"id": f"msg{i}", "role": "assistant", "model": "claude-x", "content": "@"}}
    block = '[{"type":"tool_use","id":"tu%d","name":"%s","input":%s}]' % (i, name, args_json)
    return _compact(head).replace('"@"', block)


def _result_line(i: int) -> str:
    return _compact({"type": "user", "uuid": f"r{i}", "sessionId": SID, "cwd": "/w/demo",
                     "timestamp": f"2026-03-01T10:{i:02d}:30Z", "message": {"role": "user", "content": [
                         {"type": "tool_result", "tool_use_id": f"tu{i}", "content": f"done {i}"}]}})


CALLS = [  # (what it is, the arguments as the log writes them, kept as a reference)
    ("a script", _compact({"command": SCRIPT, "description": "run every step"}), True),
    ("an edit", _compact({"file_path": "/w/demo/a.py", "old_string": "def f():\n" * 40, "new_string": "g = 1\n" * 50}), True),
    ("a secret", _compact({"command": f"curl -H 'Authorization: token {TOKEN}' {FILLER}"}), True),
    ("python's spaces", json.dumps({"command": "echo spaced " + FILLER, "n": [1, 2.5]}), True),
    ("escaped", json.dumps({"command": "écho " + FILLER}), True),
    ("a lone surrogate", '{"command":"echo \\ud800 %s"}' % FILLER, False),
    ("a number written oddly", '{"timeout":1.0E2,"command":"sleep %s"}' % FILLER, False),
    ("short", _compact({"command": "ls"}), False),
]


def _write_session(root: Path) -> Path:
    log = root / "-w-demo" / f"{SID}.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    lines = [_compact({"type": "user", "uuid": "u0", "sessionId": SID, "cwd": "/w/demo",
                       "timestamp": "2026-03-01T10:00:00Z", "message": {"role": "user", "content": "run it"}})]
    for i, (_, args_json, _) in enumerate(CALLS, 1):
        lines += [_call_line(i, args_json), _result_line(i)]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


def _index(db: Path, roots: dict[str, list[Path]], *, archive: bool) -> None:
    with Index(db) as index:
        index.update(only_roots(roots), now=FIXED_NOW, archive=archive)


def _indexed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The session written and indexed with the archive on: (logs folder, log, index)."""
    root = tmp_path / "logs"
    log = _write_session(root)
    db = tmp_path / "i.sqlite3"
    _index(db, {"claude-code": [root]}, archive=True)
    return root, log, db


def _cold() -> None:
    """As a fresh process: nothing read back before is reused."""
    forget_texts_read()
    clear_range_cache()


def _messages(db: Path) -> list[tuple]:
    """Every session's messages, as a transcript shows them (text and arguments)."""
    _cold()
    with Index(db) as index:
        return [(s.agent, s.session_id, m.ordinal, m.role, m.kind, m.tool_name, m.ts, m.text, m.detail, m.mark)
                for s in index.sessions(limit=None) for m in index.messages(s)]


def _details(db: Path) -> dict[str, int]:
    """How the tool calls' arguments are stored: a reference, packed, or as text."""
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute(
            "SELECT CASE WHEN substr(detail, 1, 4) = X'54425201' THEN 'reference'"
            " WHEN typeof(detail) = 'blob' THEN 'packed' ELSE 'text' END, count(*)"
            " FROM messages WHERE kind = 'tool_call' AND detail IS NOT NULL GROUP BY 1").fetchall())
    finally:
        conn.close()


def _calls(db: Path) -> list[str | None]:
    _cold()
    with Index(db) as index:
        return [m.detail for m in index.messages(index.session(SID)) if m.kind == "tool_call"]


@pytest.mark.parametrize("agent", ["claude-code", "pi", "codex"])
def test_the_corpus_reads_the_same_with_the_archive_on_and_off(tmp_path, agent):
    """Real logs: every message (text and arguments) the same, the big arguments references
    (Codex's a string holding the JSON, read twice)."""
    logs = tmp_path / "logs"
    shutil.copytree(CORPUS / agent, logs)
    _index(tmp_path / "off.sqlite3", {agent: [logs]}, archive=False)
    _index(tmp_path / "on.sqlite3", {agent: [logs]}, archive=True)
    on = _messages(tmp_path / "on.sqlite3")
    assert on == _messages(tmp_path / "off.sqlite3")
    assert not any(m[8] and m[8].startswith(UNREADABLE) for m in on)
    stored = _details(tmp_path / "on.sqlite3")
    assert stored.get("reference", 0) >= 4 and "packed" not in stored
    assert "reference" not in _details(tmp_path / "off.sqlite3")


def test_big_arguments_are_references_and_what_cannot_rebuild_stays_packed(tmp_path):
    root = tmp_path / "logs"
    _write_session(root)
    _index(tmp_path / "off.sqlite3", {"claude-code": [root]}, archive=False)
    _index(tmp_path / "on.sqlite3", {"claude-code": [root]}, archive=True)
    on = _calls(tmp_path / "on.sqlite3")
    assert on == _calls(tmp_path / "off.sqlite3")
    assert json.loads(on[0])["command"] == SCRIPT
    assert "\ufffd" in on[5] and json.loads(on[6])["timeout"] == 100.0  # read as the parser read them
    assert _details(tmp_path / "on.sqlite3") == {"reference": 5, "packed": 2, "text": 1}
    conn = sqlite3.connect(tmp_path / "on.sqlite3")
    kept = [(n, v[:4] == b"TBR\x01") for n, v in conn.execute(
        "SELECT ordinal, detail FROM messages WHERE kind = 'tool_call' ORDER BY ordinal")]
    conn.close()
    assert [ref for _, ref in kept] == [expected for _, _, expected in CALLS]


def test_exports_and_masking_read_the_arguments(tmp_path):
    root = tmp_path / "logs"
    _write_session(root)
    outputs = {}
    for name, archive in (("off", False), ("on", True)):
        _index(tmp_path / f"{name}.sqlite3", {"claude-code": [root]}, archive=archive)
        _cold()
        with Index(tmp_path / f"{name}.sqlite3") as index:
            export = collect_export(index, index.session(SID))
            outputs[name] = {fmt: render_export(export, fmt, now=FIXED_NOW) for fmt in ("md", "html")}
            outputs[name]["json"] = json.loads(render_export(export, "json", now=FIXED_NOW))["messages"]
            shown = collect_export(index, index.session(SID), reveal_secrets=True)
            assert TOKEN in shown.messages[5].detail
    assert outputs["on"] == outputs["off"]
    assert _details(tmp_path / "on.sqlite3")["reference"] == 5
    html = outputs["on"]["html"]
    assert "step 29: naïve" in html and "[masked" in html and TOKEN not in html


def test_the_archive_serves_a_deleted_log_and_the_log_serves_a_deleted_archive(tmp_path):
    root, log, db = _indexed(tmp_path)
    before = _calls(db)
    assert _details(db)["reference"] == 5
    shutil.rmtree(tmp_path / "archive")
    assert _calls(db) == before  # the log itself, where it still is
    _index(db, {"claude-code": [root]}, archive=True)  # archived again
    log.unlink()
    _index(db, {"claude-code": [root]}, archive=True)
    assert _calls(db) == before


def test_a_log_changed_after_indexing_gives_a_placeholder_not_other_arguments(tmp_path):
    _, log, db = _indexed(tmp_path)
    before = _calls(db)
    shutil.rmtree(tmp_path / "archive")
    data = log.read_bytes()
    log.write_bytes(data.replace(b"step 7: na", b"step X: na"))  # same length, inside the script
    after = _calls(db)
    changed = [a for a, b in zip(after, before) if a != b]
    assert len(changed) == 1 and changed[0].startswith(UNREADABLE) and "step X" not in changed[0]


def test_arguments_appended_later_point_at_their_place_in_the_whole_log(tmp_path):
    root, log, db = _indexed(tmp_path)
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(_call_line(40, _compact({"command": "appended " + FILLER})) + "\n")
    _index(db, {"claude-code": [root]}, archive=True)
    _index(tmp_path / "off.sqlite3", {"claude-code": [root]}, archive=False)
    assert _calls(db) == _calls(tmp_path / "off.sqlite3")
    assert json.loads(_calls(db)[-1])["command"] == "appended " + FILLER
    assert _details(db)["reference"] == 6


def test_a_search_hit_leaves_arguments_in_the_log_and_its_context_reads_them(tmp_path):
    """The search path never reads a log (nor loads the archive): a hit's arguments kept there
    are None; the message read again, and the context around a hit, have them."""
    _, _, db = _indexed(tmp_path)
    _cold()
    with Index(db) as index:
        hit = next(h for h in index.search("naïve", limit=20).hits if h.message.kind == "tool_call")
        assert hit.message.detail is None
        assert json.loads(index.message(hit.message.id).detail)["command"] == SCRIPT
        around = index.search("run it", limit=20).hits[0]
        _, after = index.context(around.message, 0, 2)
        assert json.loads(after[0].detail)["command"] == SCRIPT


def test_compact_replaces_an_older_index_packed_arguments_by_references(tmp_path, monkeypatch):
    """An index from before argument references (the archive on): ``index --compact`` leaves
    it as a new build would be, every transcript reading the same."""
    from cli_process import threadback

    root = tmp_path / "logs"
    _write_session(root)
    db = tmp_path / "i.sqlite3"
    with monkeypatch.context() as patched:  # what an index run did before argument references
        patched.setattr("indexer.ingest.prepare.args_reference_for", lambda *args: None)
        _index(db, {"claude-code": [root]}, archive=True)
    assert _details(db) == {"packed": 7, "text": 1}
    before = _calls(db)
    done = threadback("--db", str(db), "index", "--compact", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["arguments_referred"] == 5
    assert _details(db) == {"reference": 5, "packed": 2, "text": 1}
    assert _calls(db) == before
    again = threadback("--db", str(db), "index", "--compact", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["arguments_referred"] == 0


def test_a_search_that_hits_a_call_with_arguments_in_the_log_loads_no_archive(tmp_path):
    """``threadback search`` (run by agents many times a session) finds the tool call and
    prints it without reading its log: no archive module, no zstandard, no reference reader."""
    from cli_process import cli_env
    from test_startup_imports import HEAVY, STDLIB_NOT_NEEDED, imported_modules, loaded

    _, _, db = _indexed(tmp_path)
    assert _details(db)["reference"] == 5
    env = cli_env(THREADBACK_DB=str(db), THREADBACK_HOME=str(tmp_path / "home"), HOME=str(tmp_path / "home"),
                  THREADBACK_MEMORY_DIR=str(tmp_path / "memory"))
    for argv in (["search", "naïve"], ["search", "--json", "naïve"]):
        modules, out = imported_modules(argv, env)
        assert "[Bash] cat" in out
        assert loaded(modules, ("indexer.archive", "indexer.store.log_ref", "indexer.store.log_ref_reader")) == []
        assert loaded(modules, HEAVY) == [] and loaded(modules, STDLIB_NOT_NEEDED) == []

"""opencode's SQLite store (``opencode.db``): a real SQLite file with opencode's schema (its
drizzle tables ``session``, ``message``, ``part``, in WAL mode as opencode keeps it), indexed and
searched through the real CLI. One file holds many sessions; each is mirrored as one session
file (``indexer.sources.opencode_db``), so a run reads only the sessions that changed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from cli_process import threadback

# opencode's tables as its drizzle schema declares them (packages/opencode/src/session/session.sql.ts,
# project/project.sql.ts): the columns a reader touches, with their types and keys.
SCHEMA = """
CREATE TABLE project (id text PRIMARY KEY NOT NULL, worktree text NOT NULL, vcs text, name text,
    time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE session (id text PRIMARY KEY NOT NULL, project_id text NOT NULL REFERENCES project(id) ON DELETE CASCADE,
    parent_id text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL,
    share_url text, summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text,
    revert text, permission text, time_created integer NOT NULL, time_updated integer NOT NULL,
    time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY NOT NULL, session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY NOT NULL, message_id text NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_idx ON message (session_id);
CREATE INDEX part_message_idx ON part (message_id);
"""
T0 = 1_780_000_000_000  # ms


def make_db(home: Path, project: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    db = home / "opencode.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO project VALUES ('prj_1', ?, 'git', 'shop', ?, ?)", (str(project), T0, T0))
    add_session(conn, "ses_parent", None, project, "Fix flaky checkout test", [
        ("user", "the checkout test fails about once in five runs on CI"),
        ("assistant", "It races the payment mock; I awaited the webhook before asserting."),
    ], tool=("bash", "pytest tests/test_checkout.py", "FAILED test_checkout - TimeoutError: webhook never arrived"))
    add_session(conn, "ses_child", "ses_parent", project, "Child session - look for the mock", [
        ("user", "find where the payment mock is defined"),
        ("assistant", "The mock lives in tests/fakes/payments.py."),
    ])
    conn.commit()
    conn.close()
    return db


def add_session(conn: sqlite3.Connection, sid: str, parent: str | None, project: Path, title: str,
                turns: list[tuple[str, str]], tool: tuple[str, str, str] | None = None, at: int = T0) -> None:
    conn.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created,"
                 " time_updated) VALUES (?, 'prj_1', ?, ?, ?, ?, '1.2.0', ?, ?)",
                 (sid, parent, sid[4:], str(project), title, at, at))
    for i, (role, text) in enumerate(turns):
        add_message(conn, sid, f"msg_{sid}_{i:03d}", role, text, at + i * 1000,
                    tool if role == "assistant" else None)


def add_message(conn: sqlite3.Connection, sid: str, mid: str, role: str, text: str, at: int,
                tool: tuple[str, str, str] | None = None) -> None:
    data = {"role": role, "time": {"created": at}, "sessionID": sid}
    if role == "assistant":
        data |= {"modelID": "claude-sonnet-4", "providerID": "anthropic", "path": {"cwd": "/", "root": "/"}}
    conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (mid, sid, at, at, json.dumps(data)))
    conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                 (f"prt_{mid}_a", mid, sid, at, at, json.dumps({"type": "text", "text": text})))
    if tool is not None:
        name, command, output = tool
        state = {"status": "completed", "input": {"command": command}, "output": output,
                 "time": {"start": at, "end": at + 500}}
        conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                     (f"prt_{mid}_b", mid, sid, at, at,
                      json.dumps({"type": "tool", "tool": name, "callID": "call_1", "state": state})))
    conn.execute("UPDATE session SET time_updated = max(time_updated, ?) WHERE id = ?", (at, sid))


def run(tmp_path: Path, *args: str):
    env = {"THREADBACK_HOME": str(tmp_path / "tb"), "THREADBACK_CONFIG": str(tmp_path / "none.toml")}
    return threadback("--db", str(tmp_path / "index" / "index.sqlite3"),
                      "--opencode-dir", str(tmp_path / "opencode" / "storage" / "session"), *args, **env)


def sessions(tmp_path: Path, *flags: str) -> dict[str, dict]:
    listed = run(tmp_path, "sessions", "--json", *flags)
    return {s["session_id"]: s for s in json.loads(listed.stdout) if s["agent"] == "opencode"}


def mirror_files(tmp_path: Path) -> dict[str, Path]:
    return {p.stem: p for p in (tmp_path / "index" / "mirrors").rglob("ses_*.json")}


def test_every_session_of_the_database_is_found_searched_and_resumable(tmp_path: Path):
    project = tmp_path / "shop"
    project.mkdir()
    make_db(tmp_path / "opencode", project)  # only the database: no storage/ folder at all
    indexed = run(tmp_path, "index")
    assert indexed.returncode == 0 and "Traceback" not in indexed.stderr, indexed.stderr

    found = sessions(tmp_path)  # the top-level ones; the child is listed under its parent
    assert set(found) == {"ses_parent"}
    child = json.loads(run(tmp_path, "search", "--json", "payment mock is defined").stdout)["hits"]
    assert [(h["session_id"], h["parent_session_id"]) for h in child] == [("ses_child", "ses_parent")]
    assert found["ses_parent"]["title"] == "Fix flaky checkout test"
    assert found["ses_parent"]["project_path"] == str(project)

    hits = json.loads(run(tmp_path, "search", "--json", "awaited the webhook").stdout)["hits"]
    assert [h["session_id"] for h in hits] == ["ses_parent"]
    assert hits[0]["resume"]["command"] is not None and "--session ses_parent" in hits[0]["resume"]["command"]
    shown = run(tmp_path, "show", "ses_parent")
    assert "pytest tests/test_checkout.py" in shown.stdout  # the tool call is in the transcript
    exported = run(tmp_path, "export", "ses_parent", "-o", str(tmp_path / "out.md"))
    assert exported.returncode == 0, exported.stderr
    assert "awaited the webhook" in (tmp_path / "out.md").read_text(encoding="utf-8")


def test_a_run_reads_only_the_sessions_that_changed(tmp_path: Path):
    project = tmp_path / "shop"
    project.mkdir()
    db = make_db(tmp_path / "opencode", project)
    assert run(tmp_path, "index").returncode == 0
    before = {sid: p.stat().st_mtime_ns for sid, p in mirror_files(tmp_path).items()}
    assert set(before) == {"ses_parent", "ses_child"}

    again = json.loads(run(tmp_path, "index", "--json").stdout)
    assert again["files_new"] == 0 and again["files_reindexed"] == 0 and again["files_appended"] == 0
    assert {sid: p.stat().st_mtime_ns for sid, p in mirror_files(tmp_path).items()} == before

    conn = sqlite3.connect(db)
    add_message(conn, "ses_child", "msg_ses_child_900", "user", "now rename the mock to FakeGateway", T0 + 60_000)
    conn.commit()
    conn.close()
    third = run(tmp_path, "index")
    assert third.returncode == 0, third.stderr
    after = {sid: p.stat().st_mtime_ns for sid, p in mirror_files(tmp_path).items()}
    assert after["ses_parent"] == before["ses_parent"]  # not written again
    assert after["ses_child"] != before["ses_child"]
    hits = json.loads(run(tmp_path, "search", "--json", "FakeGateway").stdout)["hits"]
    assert [h["session_id"] for h in hits] == ["ses_child"]


def test_a_session_removed_from_the_database_is_missing_not_lost(tmp_path: Path):
    project = tmp_path / "shop"
    project.mkdir()
    db = make_db(tmp_path / "opencode", project)
    assert run(tmp_path, "index").returncode == 0
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM part WHERE session_id = 'ses_child'")
    conn.execute("DELETE FROM message WHERE session_id = 'ses_child'")
    conn.execute("DELETE FROM session WHERE id = 'ses_child'")
    conn.commit()
    conn.close()
    assert run(tmp_path, "index").returncode == 0
    assert "ses_child" not in mirror_files(tmp_path)
    found = sessions(tmp_path, "--all")
    assert found["ses_child"]["source_missing"] and found["ses_child"]["archived"]  # the archive keeps it
    assert json.loads(run(tmp_path, "search", "--json", "payment mock is defined").stdout)["hits"]


def test_a_database_being_written_is_read_without_waiting_or_writing(tmp_path: Path):
    project = tmp_path / "shop"
    project.mkdir()
    db = make_db(tmp_path / "opencode", project)
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # opencode in the middle of a write
    add_message(writer, "ses_parent", "msg_ses_parent_500", "user", "uncommitted words", T0 + 90_000)
    try:
        before = db.read_bytes()
        indexed = run(tmp_path, "index")
        assert indexed.returncode == 0 and "Traceback" not in indexed.stderr, indexed.stderr
        assert set(sessions(tmp_path)) == {"ses_parent"}
        assert not json.loads(run(tmp_path, "search", "--json", "uncommitted words").stdout)["hits"]
        assert db.read_bytes() == before  # read-only: not a byte of opencode's file changed
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_damaged_database_is_one_line_and_the_rest_is_indexed(tmp_path: Path):
    home = tmp_path / "opencode"
    (home / "storage" / "session" / "prj_1").mkdir(parents=True)
    (home / "opencode.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    session_file = home / "storage" / "session" / "prj_1" / "ses_files.json"
    session_file.write_text(json.dumps({"id": "ses_files", "directory": str(tmp_path), "title": "from the files"}))
    (home / "storage" / "message" / "ses_files").mkdir(parents=True)
    (home / "storage" / "message" / "ses_files" / "msg_1.json").write_text(
        json.dumps({"id": "msg_1", "sessionID": "ses_files", "role": "user", "time": {"created": T0}}))
    (home / "storage" / "part" / "msg_1").mkdir(parents=True)
    (home / "storage" / "part" / "msg_1" / "prt_1.json").write_text(
        json.dumps({"id": "prt_1", "messageID": "msg_1", "type": "text", "text": "a session from the file store"}))
    indexed = run(tmp_path, "index")
    assert indexed.returncode == 0, indexed.stderr
    assert "Traceback" not in indexed.stderr
    problem = [line for line in indexed.stderr.splitlines() if "opencode.db" in line]
    assert len(problem) == 1 and "not read" in problem[0]
    assert set(sessions(tmp_path)) == {"ses_files"}  # the file store beside it is still read
    again = run(tmp_path, "index")  # said again on the next run, still one line and no trace
    assert again.returncode == 0 and "Traceback" not in again.stderr
    assert len([line for line in again.stderr.splitlines() if "opencode.db" in line]) == 1

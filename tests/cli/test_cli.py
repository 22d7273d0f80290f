"""The `threadback` command line as a script or an agent runs it: output and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.ingest import IndexLock
from tui.cli import exits
from tui.cli.main import main

from conftest import CORPUS

def root_args(corpus: Path) -> list[str]:
    return [
        "--claude-dir", str(corpus / "claude-code" / "projects"),
        "--codex-dir", str(corpus / "codex" / "sessions"),
        "--pi-dir", str(corpus / "pi"),
    ]


ROOT_ARGS = root_args(CORPUS)


@pytest.fixture
def cli_db(corpus_index_path) -> list[str]:
    return ["--db", str(corpus_index_path)]


def test_index_prints_a_summary_line(tmp_path, private_corpus, capsys):
    db = tmp_path / "i.sqlite3"
    assert main(["--db", str(db), *root_args(private_corpus), "index"]) == exits.OK
    out = capsys.readouterr().out
    assert "files (" in out and "sessions" in out and "messages" in out and " s" in out
    assert main(["--db", str(db), *root_args(private_corpus), "index", "--json"]) == exits.OK
    summary = json.loads(capsys.readouterr().out)
    assert summary["files_new"] == 0 and summary["bytes_read"] == 0 and summary["sessions"] > 20


def test_index_says_how_many_logs_came_back_after_a_run_found_them_gone(tmp_path, private_corpus, capsys):
    db, args = tmp_path / "i.sqlite3", root_args(private_corpus)
    log = sorted((private_corpus / "claude-code" / "projects").rglob("*.jsonl"))[0]
    assert main(["--db", str(db), *args, "index", "-q"]) == exits.OK
    away = tmp_path / "away.jsonl"
    os.rename(log, away)
    assert main(["--db", str(db), *args, "index"]) == exits.OK
    assert ", 1 gone) · " in capsys.readouterr().out
    os.rename(away, log)
    assert main(["--db", str(db), *args, "index"]) == exits.OK
    assert " rewritten, 0 gone, 1 back) · " in capsys.readouterr().out
    os.rename(log, away)
    assert main(["--db", str(db), *args, "index", "-q"]) == exits.OK
    os.rename(away, log)
    assert main(["--db", str(db), *args, "index", "--json"]) == exits.OK
    summary = json.loads(capsys.readouterr().out)
    assert (summary["files_returned"], summary["files_appended"], summary["bytes_read"]) == (1, 0, 0)


def test_index_while_locked_exits_busy(tmp_path, capsys):
    db = tmp_path / "i.sqlite3"
    with IndexLock(db):
        assert main(["--db", str(db), *ROOT_ARGS, "index"]) == exits.BUSY
    assert "another Threadback index run" in capsys.readouterr().err


def test_corrupt_index_message_and_rebuild(tmp_path, capsys):
    db = tmp_path / "i.sqlite3"
    db.write_bytes(b"garbage" * 1000)
    assert main(["--db", str(db), "search", "theme"]) == exits.INDEX
    assert "--rebuild" in capsys.readouterr().err
    assert main(["--db", str(db), *ROOT_ARGS, "index", "--rebuild", "-q"]) == exits.OK
    assert main(["--db", str(db), "search", "theme", "-n", "1"]) == exits.OK


def test_missing_index_says_how_to_make_one(tmp_path, capsys):
    assert main(["--db", str(tmp_path / "none.sqlite3"), "search", "theme"]) == exits.INDEX
    assert "threadback index" in capsys.readouterr().err


def test_search_human_and_json(cli_db, capsys):
    assert main([*cli_db, "search", '"code organization"', "-n", "2", "-C", "1"]) == exits.OK
    out = capsys.readouterr().out
    assert "[1] claude-code · claude_p" in out and "«code organization»" in out
    assert "session 29ccd257-68b1-427f-ae5f-6524b7cb6f20" in out or "session agent-a2271d1" in out
    assert main([*cli_db, "search", "更新", "--json"]) == exits.OK
    data = json.loads(capsys.readouterr().out)
    assert data["hits"] and data["hits"][0]["project"] == "Demo"
    start, end = data["hits"][0]["spans"][0]
    assert data["hits"][0]["snippet"][start:end] == "更新"


def test_search_exit_codes_and_suggestions(cli_db, capsys):
    assert main([*cli_db, "search", "zzqqxxnothing", "agent:pi"]) == exits.NOTHING_FOUND
    out = capsys.readouterr().out
    assert "no hits" in out and "drop the filter agent:pi" in out
    assert main([*cli_db, "search", "x"]) == exits.USAGE
    assert "too short" in capsys.readouterr().err


def test_search_budget_marks_omitted_hits(cli_db, capsys):
    assert main([*cli_db, "search", "theme", "-n", "20", "--budget", "700"]) == exits.OK
    out = capsys.readouterr().out
    assert len(out.encode()) < 1500
    assert "more hits omitted]" in out


def test_search_exclude_session(cli_db, capsys):
    main([*cli_db, "search", '"code organization"', "--json"])
    first = json.loads(capsys.readouterr().out)["hits"]
    sid = first[0]["session_id"]
    main([*cli_db, "search", '"code organization"', "--json", "--exclude-session", sid])
    rest = json.loads(capsys.readouterr().out)["hits"]
    assert sid not in {h["session_id"] for h in rest}


def test_show_transcript_and_window(cli_db, capsys):
    assert main([*cli_db, "show", "29ccd257"]) == exits.OK
    out = capsys.readouterr().out
    assert "claude-code · claude_p · 29ccd257-68b1-427f-ae5f-6524b7cb6f20" in out and "[Task]" in out
    main([*cli_db, "show", "29ccd257", "--json"])
    messages = json.loads(capsys.readouterr().out)["messages"]
    middle = messages[2]["message_id"]
    assert main([*cli_db, "show", "29ccd257", "--around", str(middle), "-C", "1", "--json"]) == exits.OK
    window = json.loads(capsys.readouterr().out)["messages"]
    assert [m["message_id"] for m in window] == [m["message_id"] for m in messages[1:4]]
    assert main([*cli_db, "show", "nonexistent-session"]) == exits.NOT_FOUND


MESSAGE_KEYS = {"message_id", "ordinal", "time", "role", "kind", "tool", "text", "mark"}


def test_a_message_has_one_json_shape_in_every_command(cli_db, capsys):
    """show, a hit's context and events print a message with the same keys."""
    main([*cli_db, "show", "29ccd257", "--json"])
    shown = json.loads(capsys.readouterr().out)["messages"]
    main([*cli_db, "search", "tmux", "-C", "1", "--json"])
    hits = json.loads(capsys.readouterr().out)["hits"]
    main([*cli_db, "events", "--session", "29ccd257"])
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    context = [c for h in hits for c in h["context_before"] + h["context_after"]]
    assert shown and context and events
    assert {frozenset(m) for m in shown} == {frozenset(m) for m in context} == {frozenset(MESSAGE_KEYS)}
    assert {frozenset(e) - {"session", "agent", "cwd", "model"} for e in events} == {frozenset(MESSAGE_KEYS)}
    # A hit carries the same message fields, with its snippet in place of the text.
    assert MESSAGE_KEYS - {"text"} <= set(hits[0]) and "text" not in hits[0] and hits[0]["snippet"]


def test_sessions_resume_and_events(cli_db, capsys):
    assert main([*cli_db, "sessions", "--agent", "pi", "--json"]) == exits.OK
    sessions = json.loads(capsys.readouterr().out)
    assert sessions and {s["agent"] for s in sessions} == {"pi"}
    assert main([*cli_db, "resume", "29ccd257"]) == exits.OK
    assert capsys.readouterr().out.strip() == "cd /src/experiments/claude_p && claude --resume 29ccd257-68b1-427f-ae5f-6524b7cb6f20"
    assert main([*cli_db, "resume", "019a93b9"]) == exits.OK
    assert capsys.readouterr().out.strip().endswith("codex resume 019a93b9-f380-7600-98ff-940e6b99603c")
    assert main([*cli_db, "resume", "019e963d"]) == exits.OK
    out = capsys.readouterr().out.strip()
    assert out.startswith("cd /tmp/agent-history-real-agent/pi/workspace && pi --session ") and out.endswith(".jsonl")
    assert main([*cli_db, "events", "--kind", "tool_call", "--tool", "Task"]) == exits.OK
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events and all(e["kind"] == "tool_call" and e["tool"] == "Task" for e in events)
    assert set(events[0]) == MESSAGE_KEYS | {"session", "agent", "cwd", "model"}
    times = [e["time"] for e in events]
    assert times == sorted(times)


def test_console_script_runs_in_a_fresh_process(cli_db, tmp_path):
    env = {**os.environ, "THREADBACK_HOME": str(tmp_path), "THREADBACK_DB": cli_db[1]}
    proc = subprocess.run([sys.executable, "-m", "tui.cli", "search", "tmux", "-n", "1"], capture_output=True, text=True,
                          env=env, cwd=Path(__file__).resolve().parents[2], timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "[1] pi ·" in proc.stdout


def test_version_flag_names_the_program_and_its_version(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "tui.cli", "--version"], capture_output=True, text=True,
                          env={**os.environ, "THREADBACK_HOME": str(tmp_path)}, cwd=Path(__file__).resolve().parents[2], timeout=60)
    assert proc.returncode == 0, proc.stderr
    from importlib.metadata import version
    assert proc.stdout.strip() == f"threadback {version('threadback')}"


def test_control_characters_in_logs_are_not_sent_to_the_terminal(tmp_path, capsys):
    root = tmp_path / "projects" / "-w"
    root.mkdir(parents=True)
    line = {"type": "user", "uuid": "u", "sessionId": "s", "cwd": "/w", "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "evil \x1b]0;pwned\x07 title \x1b[2J clear \u202egnp.exe"}}
    (root / "s.jsonl").write_text(json.dumps(line) + "\n")
    db = tmp_path / "i.sqlite3"
    main(["--db", str(db), "--claude-dir", str(tmp_path / "projects"), "index", "-q"])
    capsys.readouterr()
    main(["--db", str(db), "show", "s"])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "pwned" in out
    assert "\u202e" not in out and "U+202E" in out  # a bidi override is shown, not obeyed


def test_opening_a_session_is_logged_as_the_chosen_one(cli_db, private_threadback_home, capsys):
    main([*cli_db, "search", "tmux", "-n", "1"])
    main([*cli_db, "show", "29ccd257"])
    main([*cli_db, "resume", "019a93b9"])
    capsys.readouterr()
    lines = [json.loads(x) for x in (private_threadback_home / "usage.jsonl").read_text().splitlines()]
    assert [e["kind"] for e in lines] == ["search", "show", "resume"]
    assert lines[1]["chosen"] == "29ccd257-68b1-427f-ae5f-6524b7cb6f20"
    assert lines[2]["chosen"] == "019a93b9-f380-7600-98ff-940e6b99603c"

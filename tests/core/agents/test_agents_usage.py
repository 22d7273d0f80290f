"""The usage log: written by searches and hooks; the report counts zero-hit queries."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from indexer.agents.usage import UsageEvent, read_usage, record_usage
from indexer.util.quick_json import dumps as json_line
from indexer.agents.usage_report import usage_report
from tui.cli import exits
from tui.cli.main import main

NOW = datetime(2026, 7, 1, 12, tzinfo=timezone.utc).timestamp()
DAY = 86400.0


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("THREADBACK_HOME", str(tmp_path / "home"))
    for name in ("THREADBACK_SESSION_ID", "CLAUDE_SESSION_ID"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "home"


def test_report_counts_calls_per_day_and_zero_hit_queries(tmp_path):
    path = tmp_path / "usage.jsonl"
    for event in [
        UsageEvent(NOW - 20 * DAY, "search", "too old", 0),
        UsageEvent(NOW - 2 * DAY, "search", "sqlite lock", 4),
        UsageEvent(NOW - 2 * DAY, "search", "zzq  nothing", 0),
        UsageEvent(NOW - DAY, "hook-prompt", "zzq nothing", 0, fired=True),
        UsageEvent(NOW - DAY, "hook-prompt", fired=False),
        UsageEvent(NOW - 60, "search", "設定", 0),
        UsageEvent(NOW - 30, "hook-session-start"),
    ]:
        assert record_usage(event, path)
    path.open("a", encoding="utf-8").write("not json\n{\"ts\": \"x\"}\n")
    report = usage_report(NOW, 14, path=path)
    assert report.calls == 6 and report.queries == 4 and report.zero_hits == 3
    assert report.zero_hit_rate == pytest.approx(0.75)
    assert report.zero_hit_queries == (("zzq nothing", 2), ("設定", 1))
    assert report.prompts_seen == 2 and report.prompts_fired == 1
    assert len(report.days) == 14 and report.days[-1].day == "2026-07-01"
    assert [d.calls for d in report.days[-3:]] == [2, 2, 2]
    assert json.loads(json.dumps(report.to_json()))["zero_hit_rate"] == 0.75


def test_empty_log_report():
    report = usage_report(NOW, 7, events=[])
    assert report.calls == 0 and report.zero_hit_rate == 0.0 and len(report.days) == 7


def test_the_usage_line_is_what_json_dumps_writes():
    """The log line is written without ``json``: the same text as ``json.dumps(...,
    ensure_ascii=False)`` for every kind of value an event holds, drawn at random."""
    import random

    rng = random.Random(18)
    alphabet = [chr(c) for c in [*range(0x80), 0xE9, 0x2028, 0xFEFF, 0xD800, 0xDFFF, 0x8CC7, 0x1F600]]

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))

    draws = [text, lambda: rng.randint(-10**20, 10**20), lambda: rng.uniform(-1e6, 1e6),
             lambda: [text() for _ in range(rng.randint(0, 3))],
             lambda: rng.choice([None, True, False, 0, 1, 0.1, 1e300, 5e-324, float("nan"), float("inf"), -float("inf")])]
    for _ in range(5000):
        obj = {text(): rng.choice(draws)() for _ in range(rng.randint(0, 6))}
        assert json_line(obj) == json.dumps(obj, ensure_ascii=False)
    event = UsageEvent(ts=1.5, kind="search", query='a "b" \\ 資料', hits=3, excluded=("s1",), fired=True, ms=2.25)
    assert json_line(event.to_json()) == json.dumps(event.to_json(), ensure_ascii=False)
    with pytest.raises(TypeError):
        json_line({"ts": object()})


def test_record_usage_never_raises(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert record_usage(UsageEvent(NOW, "search", "q", 1), blocker / "usage.jsonl") is False


def test_search_calls_are_logged_with_hits_and_excluded_sessions(home, corpus_index_path, capsys, monkeypatch):
    db = ["--db", str(corpus_index_path)]
    assert main([*db, "search", "theme", "-n", "1"]) == exits.OK
    assert main([*db, "search", "zzqqxxnothing"]) == exits.NOTHING_FOUND
    assert main([*db, "search", "theme", "--exclude-session", "abc", "-n", "1"]) == exits.OK
    monkeypatch.setenv("CLAUDE_SESSION_ID", "from-env")
    assert main([*db, "search", "theme", "-n", "1"]) == exits.OK
    capsys.readouterr()
    events = read_usage(home / "usage.jsonl")
    assert [(e.kind, e.query) for e in events] == [("search", "theme"), ("search", "zzqqxxnothing"),
                                                    ("search", "theme"), ("search", "theme")]
    assert events[0].hits and events[1].hits == 0
    assert events[2].excluded == ("abc",) and events[3].excluded == ("from-env",)


def test_search_excludes_the_session_named_in_the_environment(home, corpus_index_path, capsys, monkeypatch):
    db = ["--db", str(corpus_index_path)]
    assert main([*db, "search", "organization", "-1", "--json"]) == exits.OK
    sessions = [h["session_id"] for h in json.loads(capsys.readouterr().out)["hits"]]
    monkeypatch.setenv("THREADBACK_SESSION_ID", sessions[0])
    main([*db, "search", "organization", "-1", "--json"])
    assert sessions[0] not in [h["session_id"] for h in json.loads(capsys.readouterr().out)["hits"]]


def test_usage_command_text_and_json(home, capsys):
    assert main(["usage"]) == exits.OK
    assert "no calls logged yet" in capsys.readouterr().out
    import time

    record_usage(UsageEvent(time.time(), "search", "nothing here", 0))
    record_usage(UsageEvent(time.time(), "search", "found", 3))
    assert main(["usage", "--days", "3"]) == exits.OK
    out = capsys.readouterr().out
    assert "2 calls" in out and "with no hits: 1 (50%)" in out and "1× nothing here" in out
    assert main(["usage", "--json"]) == exits.OK
    data = json.loads(capsys.readouterr().out)
    assert data["zero_hit_queries"] == [{"query": "nothing here", "count": 1}] and len(data["days"]) == 14


def test_context_command(home, tmp_path, capsys, monkeypatch):
    from indexer.memory import MemoryStore

    folder = tmp_path / "mem"
    MemoryStore(folder).save_fact_text("name: Alice\n")
    assert main(["context", "--memory-dir", str(folder)]) == exits.OK
    assert "name: Alice" in capsys.readouterr().out
    assert main(["context", "--memory-dir", str(folder), "--json", "--max-bytes", "100"]) == exits.OK
    data = json.loads(capsys.readouterr().out)
    assert data["bytes"] <= 100 and data["truncated"] and data["counts"]["facts"] == 1


def test_agents_and_hooks_are_counted_apart_from_your_own_calls(tmp_path, corpus_index_path):
    """Issue 33 item 14: real processes: you search twice at a shell, Claude Code's shell
    (``CLAUDECODE=1``) and Codex's (``CODEX_THREAD_ID``) search once each, a prompt hook runs."""
    import os
    import subprocess
    import sys

    from indexer.agents.usage import AGENT_ENV_VARS

    from cli_process import REPO, cli_env

    base = {**cli_env(THREADBACK_HOME=str(tmp_path / "home"), THREADBACK_DB=str(corpus_index_path))}
    for name in AGENT_ENV_VARS:  # the suite itself may run inside an agent's shell
        base.pop(name, None)

    def run(*argv: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tui.cli", *argv], input=stdin, capture_output=True, text=True,
                              env={**base, **env}, cwd=REPO, timeout=60)

    run("search", "theme")
    run("search", "zzqqxx-nothing")
    run("search", "watcher", CLAUDECODE="1")
    run("search", "watcher", CODEX_THREAD_ID="019a93b9")
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": os.getcwd(),
                        "prompt": "didn't we fix the theme watcher before?"})
    run("hook", "prompt", stdin=event, CLAUDECODE="1")
    report = json.loads(run("usage", "--json").stdout)
    assert report["calls"] == 5 and report["by_caller"] == {"you": 2, "agent": 2, "hook": 1}
    assert sum(d["by_caller"]["you"] for d in report["days"]) == 2
    text = run("usage").stdout
    assert "by whom: you (at a shell) 2 · agents running the CLI 2 · hooks 1" in text


def test_a_line_written_before_the_caller_was_logged_counts_by_its_kind():
    old = [UsageEvent.from_json({"ts": NOW, "kind": "hook-prompt"}), UsageEvent.from_json({"ts": NOW, "kind": "search"})]
    assert usage_report(NOW, 1, events=old).by_caller == {"you": 1, "agent": 0, "hook": 1}

"""Memory with evidence (issue 36): a memory cites a transcript span; the span is checked against
the index; a changed or lost source says "source changed", lowers the entry's strength and is
never presented as settled; files a recalled session wrote that changed since are named."""

from __future__ import annotations

import json
import os
import time

import pytest

from indexer import Index, only_roots
from indexer.memory import MemoryStore
from indexer.memory.citations import CitationLog
from indexer.provenance.changed_files import changed_line, files_changed_since

from agent_logs import claude_session
from attribution_histories import play
from cli_process import threadback
from conftest import FIXED_NOW

TEXTS = ["the redis port clashes with the metrics container", "I moved redis to port 6380 in docker-compose.yml",
         "good, keep it there", "noted: redis stays on 6380"]


@pytest.fixture()
def world(tmp_path):
    logs = tmp_path / "logs"
    log = claude_session(logs, "redis-move", "shop", TEXTS)
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "fact.yml").write_text("redis_port: 6380\n", encoding="utf-8")
    db = tmp_path / "index.sqlite3"
    with Index(db) as index:
        index.update(only_roots({"claude-code": [logs]}), now=FIXED_NOW, archive=False)
    return {"db": str(db), "memory": str(memory), "log": log, "logs": logs}


def memory_cli(world, *argv):
    return threadback("memory", "--memory-dir", world["memory"], *argv, THREADBACK_DB=world["db"])


def reindex(world):
    with Index(world["db"]) as index:
        index.update(only_roots({"claude-code": [world["logs"]]}), now=FIXED_NOW, archive=False)


def test_add_cites_a_span_and_a_changed_source_is_flagged_and_weakens(world):
    added = memory_cli(world, "add", "--summary", "redis lives on 6380", "--importance", "6",
                       "--cite", "redis-move:1-3", "--json")
    assert added.returncode == 0, added.stderr
    entry = json.loads(added.stdout)
    [cited] = entry["cites"]
    assert (cited["session"], cited["first"], cited["last"]) == ("claude-code:redis-move", 1, 3)
    assert len(cited["digest"]) == 64
    fact = memory_cli(world, "cite", "fact:redis_port", "redis-move:1")
    assert fact.returncode == 0 and "fact:redis_port cites claude-code:redis-move:1" in fact.stdout

    checked = memory_cli(world, "sources")
    assert checked.returncode == 0 and checked.stdout.count(" ok") == 2
    before = json.loads(memory_cli(world, "show", entry["id"], "--json").stdout)["strength"]

    # The cited answer is rewritten in the log (a re-run, an edit): its text is not what was cited.
    world["log"].write_text(world["log"].read_text().replace("port 6380", "port 6390"), encoding="utf-8")
    reindex(world)
    checked = memory_cli(world, "sources", "--json")
    statuses = {c["ref"]: c["status"] for c in json.loads(checked.stdout)}
    assert statuses == {entry["id"]: "changed", "fact:redis_port": "changed"}
    assert "source changed" in memory_cli(world, "sources").stdout
    after = json.loads(memory_cli(world, "show", entry["id"], "--json").stdout)["strength"]
    assert after == pytest.approx(before - 0.24, abs=0.01)

    context = threadback("context", "--memory-dir", world["memory"], THREADBACK_DB=world["db"])
    lines = [line for line in context.stdout.splitlines() if "redis" in line]
    assert lines and all("source changed" in line for line in lines)


def test_the_context_names_files_a_cited_session_wrote_that_changed_since(tmp_path):
    history = play(tmp_path / "h", 2, git=True)
    db = tmp_path / "i.sqlite3"
    with Index(db) as index:
        index.update(only_roots({a: [p] for a, p in history.logs.items() if p.exists()}), now=time.time())
        last = max(index.sessions(limit=None), key=lambda s: s.end_ts or 0)
    memory = tmp_path / "memory"
    memory.mkdir()
    os.utime(history.file, (last.end_ts + 3600, last.end_ts + 3600))  # changed an hour after the session
    env = {"THREADBACK_DB": str(db)}
    added = threadback("memory", "--memory-dir", str(memory), "add", "--summary", "the cart totals are in cents",
                       "--cite", last.session_id, **env)
    assert added.returncode == 0, added.stderr
    assert threadback("memory", "--memory-dir", str(memory), "sources", **env).returncode == 0
    context = threadback("context", "--memory-dir", str(memory), **env).stdout
    [line] = [line for line in context.splitlines() if "cart totals" in line]
    assert f"these files changed since: {history.file}" in line and "source changed" not in line


def test_a_log_gone_and_not_archived_is_a_changed_source(world):
    memory_cli(world, "add", "--summary", "redis lives on 6380", "--cite", "redis-move")
    world["log"].unlink()
    reindex(world)
    checked = json.loads(memory_cli(world, "sources", "--json").stdout)
    assert [c["status"] for c in checked] == ["gone"]
    assert "its log is gone" in memory_cli(world, "sources").stdout


def test_a_bad_citation_writes_nothing_and_says_why(world):
    store_before = (MemoryStore(world["memory"]).entries(), CitationLog(world["memory"]).all())
    for argv, words in ((["add", "--summary", "x", "--cite", "no-such-session:1"], "no session"),
                        (["add", "--summary", "x", "--cite", "redis-move:5-2"], "backwards"),
                        (["add", "--summary", "x", "--cite", "redis-move:40"], "no message 40"),
                        (["cite", "fact:missing", "redis-move:1"], "missing")):
        proc = memory_cli(world, *argv)
        assert proc.returncode != 0 and "Traceback" not in proc.stderr, (argv, proc.stderr)
        assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, (argv, proc.stderr)
    assert (MemoryStore(world["memory"]).entries(), CitationLog(world["memory"]).all()) == store_before


def test_files_a_session_wrote_that_changed_since_are_named(tmp_path):
    history = play(tmp_path / "h", 2, git=True)
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(only_roots({a: [p] for a, p in history.logs.items() if p.exists()}), now=time.time())
        sessions = index.sessions(limit=None)
        last = max(sessions, key=lambda s: s.end_ts or 0)
        os.utime(history.file, (last.end_ts - 10, last.end_ts - 10))  # as the last session left it
        assert files_changed_since(index, last) == []
        os.utime(history.file, (last.end_ts + 3600, last.end_ts + 3600))  # a person's edit an hour later
        changed = files_changed_since(index, last)
        assert changed == [str(history.file)]
        assert changed_line(changed) == f"these files changed since: {history.file}"


def test_the_mcp_propose_rule_tool_takes_a_citation(world, tmp_path):
    import sys

    import anyio
    from mcp import Client, StdioServerParameters

    from cli_process import REPO, cli_env
    from indexer.rules import RuleStore

    env = cli_env(THREADBACK_DB=world["db"], THREADBACK_MEMORY_DIR=world["memory"], THREADBACK_HOME=str(tmp_path / "h"))
    params = StdioServerParameters(command=sys.executable, args=["-m", "tui.cli", "mcp"], env=env, cwd=str(REPO))

    async def run():
        async with Client(params, read_timeout_seconds=30) as client:
            return (await client.call_tool("propose_rule", {"text": "Keep redis on port 6380.", "cite": "redis-move:1-3"}),
                    await client.call_tool("propose_rule", {"text": "Another rule.", "cite": "redis-move:9-1"}))

    cited, refused = anyio.run(run)
    rule_id = cited.structured_content["rule"]["id"]
    [citation] = CitationLog(world["memory"]).of(f"rule:{rule_id}")
    assert (citation.session, citation.first, citation.last) == ("claude-code:redis-move", 1, 3)
    assert refused.is_error and "backwards" in refused.content[0].text
    assert [r.text for r in RuleStore(world["memory"]).pending()] == ["Keep redis on port 6380."]

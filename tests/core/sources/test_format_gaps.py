"""The format gaps the fixture check found (issue 34): names a person gave are searchable; old
inline Claude sidechains read as subagent work; a prompt taken off Claude's queue unsent is
kept; Claude summaries carried in ``message.content``, Codex raw reasoning and a Workflow's
script are stored."""

from __future__ import annotations

import json
from pathlib import Path

from indexer import Index
from indexer.models import SUMMARY, THINKING
from indexer.sources import claude_code, codex
from indexer.sources.base import SessionMeta
from indexer.sources.tool_lines import describe_tool_call

from conftest import FIXED_NOW
from test_parsers_newest import newest_roots

SESSION = "9a8b7c6d-0000-4000-8000-00000000abcd"


def claude_parse(tmp_path: Path, records: list[dict]):
    path = tmp_path / "-w-x" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    meta = SessionMeta()
    return claude_code.parse(path, path.read_bytes(), 1, {}, meta), meta


def envelope(uuid: str, kind: str, content, **extra) -> dict:
    role = "user" if kind == "user" else "assistant"
    return {"type": kind, "uuid": uuid, "sessionId": SESSION, "timestamp": "2026-03-01T10:00:00Z",
            "message": {"role": role, "content": content}, **extra}


def test_names_people_gave_are_found_by_search(tmp_path: Path):
    index = Index(tmp_path / "index.sqlite3")
    index.update(newest_roots(), now=FIXED_NOW)
    claude = index.search('"remember addresses"', now=FIXED_NOW).hits  # the /rename, in no prompt
    assert [h.message.text for h in claude] == ["Session named: Checkout: remember addresses"]
    codex_name = index.session("019e2a10-5c4d-7e8f-9a0b-1c2d3e4f5a6b").title
    hits = index.search(f'"{codex_name}" agent:codex', now=FIXED_NOW).hits
    assert any(h.message.text == f"Session named: {codex_name}" for h in hits)
    index.close()


def test_an_inline_sidechain_is_marked_as_subagent_work(tmp_path: Path):
    out, meta = claude_parse(tmp_path, [
        envelope("u1", "user", "Audit the payment retries"),
        envelope("s1", "user", "Search the retry code", isSidechain=True, parentUuid=None),
        envelope("s2", "assistant", [{"type": "text", "text": "Found three retry loops"}], isSidechain=True),
        envelope("a1", "assistant", [{"type": "text", "text": "The subagent found three loops"}]),
    ])
    marks = [(m.text, m.mark) for m in out.messages]
    assert marks == [("Audit the payment retries", None),
                     ("Search the retry code", "subagent (inline sidechain)"),
                     ("Found three retry loops", "subagent (inline sidechain)"),
                     ("The subagent found three loops", None)]
    assert meta.title == "Audit the payment retries"  # the sidechain's prompt is not the title


def test_a_prompt_taken_off_the_queue_unsent_is_kept(tmp_path: Path):
    queue = {"type": "queue-operation", "sessionId": SESSION, "timestamp": "2026-03-01T10:00:05Z"}
    out, _ = claude_parse(tmp_path, [
        envelope("u1", "user", "Start the migration"),
        {**queue, "operation": "enqueue", "content": [{"type": "text", "text": "also bump the schema version"}]},
        {**queue, "operation": "dequeue"},
        envelope("u2", "user", "also bump the schema version"),
        {**queue, "operation": "enqueue", "content": "and drop the legacy column"},
        {**queue, "operation": "remove"},
    ])
    texts = [(m.text, m.mark) for m in out.messages]
    assert texts.count(("also bump the schema version", None)) == 1  # sent: once, from its user record
    assert ("and drop the legacy column", "queued, never sent") in texts


def test_a_summary_in_message_content_is_stored(tmp_path: Path):
    out, meta = claude_parse(tmp_path, [{"type": "summary", "leafUuid": "u9",
                                         "message": {"content": "Refactored the billing cron"}}])
    assert [(m.kind, m.text) for m in out.messages] == [(SUMMARY, "Refactored the billing cron")]
    assert meta.title == "Refactored the billing cron"


def test_codex_raw_reasoning_is_stored(tmp_path: Path):
    path = tmp_path / "rollout-2026-05-10T09-00-00-019e2a10-0000-7000-8000-000000000001.jsonl"
    lines = [{"timestamp": "2026-05-10T07:00:00Z", "type": "session_meta",
              "payload": {"id": "019e2a10-0000-7000-8000-000000000001", "cwd": "/w"}},
             {"timestamp": "2026-05-10T07:00:01Z", "type": "event_msg",
              "payload": {"type": "agent_reasoning_raw_content", "text": "The flaky test races the cache warmup"}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = codex.parse(path, path.read_bytes(), 1, {}, SessionMeta())
    assert [(m.kind, m.text) for m in out.messages] == [(THINKING, "The flaky test races the cache warmup")]


def test_a_workflow_line_keeps_its_script():
    line = describe_tool_call("Workflow", {"scriptPath": ".claude/workflows/release.js", "args": {"tag": "v2"}})
    assert ".claude/workflows/release.js" in line


def test_a_root_holding_another_agents_logs_gets_a_one_line_warning(tmp_path: Path):
    from indexer import only_roots

    codex_logs = Path(__file__).resolve().parents[2] / "data" / "newest" / "codex" / "sessions"
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("buy milk")
    index = Index(tmp_path / "index.sqlite3")
    problems = index.update(only_roots({"gemini": [codex_logs], "claude-code": [codex_logs], "amp": [notes]}),
                            now=FIXED_NOW).problems
    assert any(p.startswith(f"{codex_logs}: no Gemini CLI logs here; it looks like Codex CLI") for p in problems)
    assert any(p.startswith(f"{codex_logs}: its ") and "named as Codex CLI names its own, not as Claude Code's" in p
               for p in problems)
    assert f"{notes}: 1 file(s) but no Amp logs Threadback recognises" in problems
    right = index.update(only_roots({"codex": [codex_logs]}), now=FIXED_NOW).problems
    assert right == []
    index.close()


def test_a_rewound_attempt_is_kept_and_marked_abandoned(tmp_path: Path):
    def rec(uuid, parent, kind, text):
        content = text if kind == "user" else [{"type": "text", "text": text}]
        return envelope(uuid, kind, content, parentUuid=parent)

    records = [rec("u1", None, "user", "Speed up the nightly build"),
               rec("a1", "u1", "assistant", "Caching the wheels would help"),
               rec("u2", "a1", "user", "Try parallel test shards"),
               rec("a2", "u2", "assistant", "Sharded into four"),
               rec("u3", "a1", "user", "No: cache the docker layers instead"),  # the rewind
               rec("a3", "u3", "assistant", "Layers cached")]
    out, _ = claude_parse(tmp_path, records)
    assert [(m.text, m.mark) for m in out.messages] == [
        ("Speed up the nightly build", None), ("Caching the wheels would help", None),
        ("Try parallel test shards", "abandoned branch"), ("Sharded into four", "abandoned branch"),
        ("No: cache the docker layers instead", None), ("Layers cached", None)]
    assert all(m.indexed for m in out.messages)  # still searchable
    linear, _ = claude_parse(tmp_path, records[:4])
    assert not any(m.mark for m in linear.messages)


def test_history_a_fork_copies_shows_in_both_sessions_and_is_found_once(tmp_path: Path):
    from indexer import only_roots

    original, fork = "0a000000-0000-4000-8000-000000000001", "0b000000-0000-4000-8000-000000000002"
    shared = [envelope("u1", "user", "Why does the invoice PDF lose its logo?"),
              envelope("a1", "assistant", [{"type": "text", "text": "The logo URL is relative"}], parentUuid="u1")]
    folder = tmp_path / "logs" / "-w-x"
    folder.mkdir(parents=True)
    (folder / f"{original}.jsonl").write_text("".join(json.dumps({**r, "sessionId": original}) + "\n" for r in shared))
    copied = [{**r, "sessionId": fork, "forkedFrom": {"sessionId": original}} for r in shared]
    copied.append(envelope("u2", "user", "Make it absolute then", parentUuid="a1", sessionId=fork))
    (folder / f"{fork}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in copied))
    index = Index(tmp_path / "index.sqlite3")
    index.update(only_roots({"claude-code": [tmp_path / "logs"]}), now=FIXED_NOW)
    assert [m.text for m in index.messages(index.session(original))] == [
        "Why does the invoice PDF lose its logo?", "The logo URL is relative"]
    assert [m.text for m in index.messages(index.session(fork))] == [
        "Why does the invoice PDF lose its logo?", "The logo URL is relative", "Make it absolute then"]
    hits = index.search("invoice logo", now=FIXED_NOW).hits
    assert [h.message.text for h in hits] == ["Why does the invoice PDF lose its logo?"]
    index.close()


def test_aider_history_is_found_in_folders_the_index_knows(tmp_path: Path):
    """No aider root configured: its history file is found in a repository another agent's
    session ran in, and only there (a folder with no session is not walked)."""
    from indexer import only_roots

    repo, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    for folder in (repo, elsewhere):
        folder.mkdir()
        (folder / ".aider.chat.history.md").write_text(
            "\n# aider chat started at 2026-05-01 09:00:00\n\n#### tighten the retry budget\nDone.\n")
    logs = tmp_path / "logs" / "-repo"
    logs.mkdir(parents=True)
    (logs / f"{SESSION}.jsonl").write_text(json.dumps({**envelope("u1", "user", "hello"), "cwd": str(repo)}) + "\n")
    index = Index(tmp_path / "index.sqlite3")
    roots = only_roots({"claude-code": [tmp_path / "logs"], "aider": []})
    index.update(roots, now=FIXED_NOW)
    index.update(roots, now=FIXED_NOW)  # the second run knows the repository
    aider = index.sessions(agent="aider", limit=None)
    assert [s.project_path for s in aider] == [str(repo)]
    assert [h.session.agent for h in index.search("retry budget", now=FIXED_NOW).hits] == ["aider"]
    index.close()

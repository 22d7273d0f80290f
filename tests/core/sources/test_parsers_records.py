"""Record by record, what the newest-format fixture cannot show at once: fallback titles,
queued commands of other kinds, the worktree resume folder, images in Codex prompts, forks,
and the cases that span two index runs (twins, a Pi branch switch, a late retraction)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.sources import claude_code, codex
from indexer.sources.base import SessionMeta
from indexer.sources.tool_lines import describe_tool_call

from conftest import FIXED_NOW

S = "0a0b0c0d-0000-4000-8000-00000000000a"


def lines(*records: dict) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()


def claude_user(uuid: str, content, **extra) -> dict:
    return {"type": "user", "uuid": uuid, "sessionId": S, "cwd": "/w/app", "timestamp": "2026-05-01T10:00:00Z",
            "message": {"role": "user", "content": content}, **extra}


def parse_claude(*records: dict, folder: str = "-w-app") -> tuple[list, SessionMeta]:
    meta = SessionMeta()
    out = claude_code.parse(Path(f"/x/projects/{folder}/{S}.jsonl"), lines(*records), 1, {}, meta)
    return out.messages, meta


# -- titles ----------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["/clear", "/mode", "/init"])
def test_a_slash_command_is_the_title_only_until_a_real_prompt(command):
    tagged = f"<command-name>{command}</command-name>\n<command-args></command-args>"
    _, meta = parse_claude(claude_user("u1", tagged))
    assert meta.title == command
    _, meta = parse_claude(claude_user("u1", tagged), claude_user("u2", "Fix the login redirect loop"))
    assert meta.title == "Fix the login redirect loop"


def test_the_latest_rename_wins():
    _, meta = parse_claude(claude_user("u1", "hello"), {"type": "custom-title", "customTitle": "First name"},
                           {"type": "ai-title", "aiTitle": "Generated"}, {"type": "custom-title", "customTitle": "Second name"})
    assert meta.title == "Second name"


# -- queued commands -------------------------------------------------------------------------
def test_queued_bash_is_a_tool_line_and_a_queued_notification_is_not_user_input():
    def queued(uuid: str, mode: str, prompt) -> dict:
        return {"type": "attachment", "uuid": uuid, "timestamp": "2026-05-01T10:00:00Z",
                "attachment": {"type": "queued_command", "prompt": prompt, "commandMode": mode}}
    messages, _ = parse_claude(
        queued("q1", "bash", "git status --short"),
        queued("q2", "task-notification", "<task-notification>agent finished</task-notification>"),
        queued("q3", "prompt", [{"type": "text", "text": "and the tests"}, {"type": "image", "source": {"type": "base64", "data": "QUJD"}}]),
        {"type": "attachment", "attachment": {"type": "file", "filename": "a.py", "content": "secret file body"}},
    )
    assert [(m.role, m.kind, m.text, m.indexed) for m in messages] == [
        ("user", "tool_call", "[Bash] git status --short", True),
        ("meta", "text", "<task-notification>agent finished</task-notification>", False),
        ("user", "text", "and the tests\n[image]", True),
    ]


# -- moves -----------------------------------------------------------------------------------
def test_resume_folder_follows_the_log_after_a_worktree_move():
    worktree = {"type": "worktree-state", "worktreeSession": {"worktreePath": "/w/app/.claude/worktrees/fix", "originalCwd": "/w/app"}}
    inside = claude_user("u1", "hi", cwd="/w/app/.claude/worktrees/fix")
    # The log sits in the original checkout's folder: resume from there.
    _, meta = parse_claude(inside, worktree, folder="-w-app")
    assert meta.resume_cwd == "/w/app"
    # It sits in the worktree's own folder, as its records say: nothing to change.
    _, meta = parse_claude(inside, worktree, folder="-w-app--claude-worktrees-fix")
    assert meta.resume_cwd is None
    # An explicit relocation wins.
    _, meta = parse_claude(inside, {"type": "relocated", "relocatedCwd": "/w/elsewhere"}, worktree)
    assert meta.resume_cwd == "/w/elsewhere"


def test_forks_name_where_they_came_from():
    _, meta = parse_claude(claude_user("u1", "hi", forkedFrom={"sessionId": "origin-session", "messageUuid": "m"}))
    assert meta.branched_from == "origin-session" and meta.parent_session_id is None
    meta = SessionMeta()
    codex.parse(Path(f"/x/rollout-2026-05-01T10-00-00-{S}.jsonl"), lines(
        {"timestamp": "2026-05-01T10:00:00Z", "type": "session_meta", "payload": {"id": S, "forked_from_id": "older-thread", "source": "cli"}},
    ), 1, {}, meta)
    assert meta.branched_from == "older-thread" and meta.parent_session_id is None


# -- Codex images ------------------------------------------------------------------------------
def test_a_codex_image_never_titles_a_session():
    meta = SessionMeta()
    out = codex.parse(Path(f"/x/rollout-2026-05-01T10-00-00-{S}.jsonl"), lines(
        {"timestamp": "2026-05-01T10:00:00Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [
            {"type": "input_image", "image_url": "data:image/png;base64," + "QUJD" * 100},
            {"type": "input_image"},
            {"type": "input_image", "image_url": "https://example.com/chart.png"},
            {"type": "input_text", "text": "What does this chart show?"}]}},
    ), 1, {}, meta)
    assert meta.title == "What does this chart show?"
    assert out.messages[0].text == "[image]\n[image]\n[image: https://example.com/chart.png]\nWhat does this chart show?"


# -- tool lines --------------------------------------------------------------------------------
@pytest.mark.parametrize("name, args, line", [
    ("Grep", {"pattern": "TODO\\(", "path": "src/", "glob": "*.py"}, "[Grep] TODO\\( in src/ glob *.py"),
    ("Glob", {"pattern": "**/*.ts"}, "[Glob] **/*.ts"),
    ("Task", {"subagent_type": "Plan", "description": "Design cache", "prompt": "Plan an LRU cache"},
     "[Task] (Plan) Design cache: Plan an LRU cache"),
    ("Bash", {"command": "pytest -x", "description": "Run the tests"}, "[Bash] pytest -x # Run the tests"),
    ("WebFetch", {"url": "https://docs.python.org", "prompt": "find asyncio.timeout"},
     "[WebFetch] https://docs.python.org — find asyncio.timeout"),
    ("Skill", {"skill": "pdf", "args": "report.pdf"}, "[Skill] pdf report.pdf"),
    ("spawn_agent", {"message": "Map the callers", "agent_type": "explorer"}, "[spawn_agent] (explorer) Map the callers"),
    ("read", {"path": "notes.md", "offset": 10}, "[read] notes.md"),
    ("Edit", {"file_path": ["odd", "types"], "path": 5, "glob": None}, "[Edit] odd types in 5"),
    ("mystery", {"alpha": 1, "beta": "two", "gamma": [3]}, "[mystery] alpha=1 beta=two"),
    ("empty", {}, "[empty] (no arguments)"),
])
def test_a_tool_line_keeps_what_a_person_searches_for(name, args, line):
    assert describe_tool_call(name, args) == line


# -- across two index runs -----------------------------------------------------------------
def write(path: Path, data: bytes, mode: str = "wb") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, mode) as fh:
        fh.write(data)


def test_codex_twins_split_across_runs_are_read_once(tmp_path):
    rollout = tmp_path / "sessions" / f"rollout-2026-05-01T10-00-00-{S}.jsonl"
    roots = only_roots({"codex": [tmp_path / "sessions"]})
    index = Index(tmp_path / "i.sqlite3")

    def envelope(second: int, rtype: str, payload: dict) -> dict:
        return {"timestamp": f"2026-05-01T10:00:{second:02d}Z", "type": rtype, "payload": payload}
    write(rollout, lines(
        envelope(0, "session_meta", {"id": S, "cwd": "/w/api", "source": "cli"}),
        envelope(1, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "twinned prompt"}]}),
        envelope(2, "event_msg", {"type": "agent_message", "message": "twinned answer"}),
    ))
    index.update(roots, now=FIXED_NOW)
    write(rollout, lines(
        envelope(1, "event_msg", {"type": "user_message", "message": "twinned prompt"}),
        envelope(3, "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "twinned answer"}]}),
        envelope(4, "event_msg", {"type": "user_message", "message": "twinned prompt"}),  # typed again: no twin yet
    ), "ab")
    summary = index.update(roots, now=FIXED_NOW)
    assert summary.files_appended == 1
    texts = [m.text for m in index.messages(index.session(S))]
    assert texts == ["twinned prompt", "twinned answer", "twinned prompt"]


def test_a_pi_branch_switch_in_a_later_run_marks_the_abandoned_entries(tmp_path):
    folder = tmp_path / "sessions" / "--w-notes--"
    log = folder / f"2026-05-01T10-00-00-000Z_{S}.jsonl"
    roots = only_roots({"pi": [tmp_path / "sessions"]})
    index = Index(tmp_path / "i.sqlite3")

    def entry(eid: str, parent: str | None, role: str, text: str) -> dict:
        content = text if role == "user" else [{"type": "text", "text": text}]
        return {"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-05-01T10:00:00.000Z",
                "message": {"role": role, "content": content}}
    write(log, lines({"type": "session", "version": 3, "id": S, "cwd": "/w/notes"},
                     entry("e1", None, "user", "first question"), entry("e2", "e1", "assistant", "first answer"),
                     entry("e3", "e2", "user", "a follow-up I regret")))
    index.update(roots, now=FIXED_NOW)
    assert all(m.mark is None for m in index.messages(index.session(S)))
    write(log, lines(entry("e4", "e2", "user", "the better follow-up")), "ab")
    summary = index.update(roots, now=FIXED_NOW)
    assert summary.files_reindexed == 1  # the switch made earlier lines mean something else
    marks = {m.text: m.mark for m in index.messages(index.session(S))}
    assert marks == {"first question": None, "first answer": None, "a follow-up I regret": "abandoned branch",
                     "the better follow-up": None}
    write(log, lines(entry("e5", "e4", "assistant", "a better answer")), "ab")
    assert index.update(roots, now=FIXED_NOW).files_appended == 1  # continuing the branch only appends


def test_a_retraction_in_a_later_run_reaches_the_reply_it_retracts(tmp_path):
    project = tmp_path / "projects" / "-w-app"
    log = project / f"{S}.jsonl"
    roots = only_roots({"claude-code": [tmp_path / "projects"]})
    index = Index(tmp_path / "i.sqlite3")

    def reply(uuid: str, msg_id: str, text: str, **extra) -> dict:
        return {"type": "assistant", "uuid": uuid, "sessionId": S, "cwd": "/w/app", "timestamp": "2026-05-01T10:00:05Z",
                "message": {"id": msg_id, "role": "assistant", "model": "claude-x", "content": [{"type": "text", "text": text}]}, **extra}
    write(log, lines(claude_user("u1", "explain the cache"), reply("a1", "m1", "a refused draft about caching")))
    index.update(roots, now=FIXED_NOW)
    assert index.search('"refused draft"', now=FIXED_NOW).hits
    write(log, lines(
        {"type": "system", "subtype": "model_refusal_fallback", "uuid": "s1", "timestamp": "2026-05-01T10:00:06Z",
         "originalModel": "claude-x", "fallbackModel": "claude-y", "apiRefusalCategory": "cyber", "retractedMessageUuids": ["a1"]},
        reply("a2", "m2", "the cache keeps the last hundred pages", supersedesUuids=["a1"]),
    ), "ab")
    index.update(roots, now=FIXED_NOW)
    assert not index.search('"refused draft"', now=FIXED_NOW).hits
    [refusal] = index.search("cyber", now=FIXED_NOW).hits
    assert refusal.message.kind == "error" and "switched from claude-x to claude-y" in refusal.message.text
    assert index.search('"last hundred pages"', now=FIXED_NOW).hits


def test_an_api_error_written_as_a_reply_is_an_error():
    messages, _ = parse_claude({"type": "assistant", "uuid": "a1", "isApiErrorMessage": True, "timestamp": "2026-05-01T10:00:00Z",
                                "message": {"id": "m1", "model": "<synthetic>", "content": [{"type": "text", "text": "API Error: 500 internal"}]}})
    assert [(m.role, m.kind, m.text) for m in messages] == [("system", "error", "API Error: 500 internal")]


def test_newer_codex_records_reviews_plans_searches_and_images():
    def envelope(rtype: str, payload: dict) -> dict:
        return {"timestamp": "2026-05-01T10:00:00Z", "type": rtype, "payload": payload}
    meta = SessionMeta()
    out = codex.parse(Path(f"/x/rollout-2026-05-01T10-00-00-{S}.jsonl"), lines(
        envelope("event_msg", {"type": "exited_review_mode", "review_output": {
            "overall_correctness": "patch is incorrect", "overall_explanation": "The retry loop never stops.",
            "findings": [{"title": "[P1] Unbounded retry", "body": "retry() has no limit",
                          "code_location": {"absolute_file_path": "/w/api/retry.py", "line_range": {"start": 3, "end": 9}}}]}}),
        envelope("event_msg", {"type": "item_completed", "item": {"type": "Plan", "id": "p1", "text": "1. add a limit\n2. test it"}}),
        envelope("event_msg", {"type": "stream_error", "message": "Reconnecting... 2/5"}),
        envelope("response_item", {"type": "tool_search_call", "id": "ts1", "query": "calendar tools"}),
        envelope("response_item", {"type": "image_generation_call", "id": "ig1", "revised_prompt": "a red bicycle",
                                   "result": "iVBORw0KGgo" * 100}),
        envelope("response_item", {"type": "agent_message", "content": [{"type": "output_text", "text": "child done: 3 callers"}]}),
        envelope("compacted", {"message": "", "replacement_history": [{"type": "message", "role": "user", "content": []}]}),
    ), 1, {}, meta)
    got = [(m.role, m.kind, m.mark, m.text) for m in out.messages]
    assert got == [
        ("assistant", "text", "code review",
         "The retry loop never stops.\npatch is incorrect\n[P1] Unbounded retry /w/api/retry.py retry() has no limit"),
        ("assistant", "text", "plan", "1. add a limit\n2. test it"),
        ("system", "error", None, "Stream error: Reconnecting... 2/5"),
        ("assistant", "tool_call", None, "[tool_search] calendar tools"),
        ("assistant", "tool_call", None, "[image_generation] a red bicycle"),
        ("assistant", "text", "between agents", "child done: 3 callers"),
    ]
    assert "iVBORw0KGgo" not in out.messages[4].detail

"""Each agent's parser on the real corpus, plus the generations the corpus lacks (written here
from FORMATS.md): counts, subagent links, what is and is not indexed."""

from __future__ import annotations

import json
import re
from pathlib import Path

from indexer import Index, only_roots

from conftest import FIXED_NOW


def _sessions(index: Index, agent: str) -> dict[str, object]:
    return {s.session_id: s for s in index.sessions(agent=agent, limit=None)}


# -- Claude Code -----------------------------------------------------------------------
def test_claude_sessions_and_both_subagent_layouts(corpus_index):
    sessions = _sessions(corpus_index, "claude-code")
    # Flat 2.0.x layout: agent-<hex>.jsonl beside the sessions, parent from sessionId.
    assert sessions["agent-3430b97e"].parent_session_id == "7acd37a8-2745-4b58-a8a9-46164b22ad9e"
    # 2.1.x layout: <sessionId>/subagents/agent-<id>.jsonl with a .meta.json sidecar.
    parent = sessions["ef958aa1-0e93-49f0-bb71-150f63befcd1"]
    children = corpus_index.children(parent)
    assert len(children) == 6
    assert {c.title for c in children} >= {"general-purpose: Round 2: alice comparison"}
    # Project paths come from each record's cwd: here the parent's folder or a worktree in it,
    # which counts as the parent's project (tests/core/sources/test_subagent_project.py).
    assert all(c.project_path == parent.project_path for c in children)
    claude_p = sessions["agent-a2271d1"]
    assert claude_p.parent_session_id == "29ccd257-68b1-427f-ae5f-6524b7cb6f20"
    assert claude_p.project_name == "claude_p"


def test_claude_session_metadata(corpus_index):
    s = corpus_index.session("29ccd257-68b1-427f-ae5f-6524b7cb6f20")
    assert s.agent == "claude-code"
    assert s.project_path == "/src/experiments/claude_p"
    assert s.model == "claude-opus-4-5-20251101"
    assert s.title.startswith("Use the Explore task in sub-agents")
    assert s.message_count == 4  # prompt, Task call, Task result, answer
    kinds = [m.kind for m in corpus_index.messages(s)]
    assert kinds == ["text", "tool_call", "tool_result", "text"]


def test_claude_summary_becomes_title_and_summary_only_file_is_a_session(corpus_index):
    s = corpus_index.session("4e27c414-a885-46a0-b5c8-d58e1417377d")
    assert s.title == "TUI Cache Handling: Empty State Fix"
    assert [m.kind for m in corpus_index.messages(s)] == ["summary"]


def test_claude_lines_sharing_message_id_are_not_duplicated(corpus_index):
    s = corpus_index.session("ef958aa1-0e93-49f0-bb71-150f63befcd1")
    texts = [(m.kind, m.text) for m in corpus_index.messages(s)]
    assert len(texts) == len(set(texts)) or all(k == "tool_result" for k, _ in texts if texts.count((k, _)) > 1)
    # Every tool call is one searchable line naming what it touched.
    calls = [m.text for m in corpus_index.messages(s) if m.kind == "tool_call"]
    assert calls and all(re.match(r"^\[[^\]]+\] \S", c) for c in calls)
    assert not any(c.endswith("]") and c.count(" ") == 0 for c in calls)


def test_claude_resume_copy_is_not_indexed_twice(tmp_path):
    src = Path(__file__).resolve().parents[2] / "data/corpus/claude-code/projects/-src-experiments-claude_p/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl"
    project = tmp_path / "projects" / "-src-experiments-claude_p"
    project.mkdir(parents=True)
    (project / "29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl").write_bytes(src.read_bytes())
    # `claude --resume` copies history into a new file with the same uuids.
    (project / "11111111-2222-3333-4444-555555555555.jsonl").write_bytes(src.read_bytes())
    index = Index(tmp_path / "i.sqlite3")
    summary = index.update(only_roots({"claude-code": [tmp_path / "projects"]}), now=FIXED_NOW)
    assert summary.messages_added == 8  # each session's transcript is whole (issue 34)...
    assert len(index.search('"code organization"').hits) == 2  # ...but the prompt and the Task call count once each
    both = [index.session("11111111-2222-3333-4444-555555555555"), index.session("29ccd257-68b1-427f-ae5f-6524b7cb6f20")]
    assert [len(index.messages(s)) for s in both] == [4, 4]
    # whichever was read first holds the searchable copies (a tool result never is one)
    assert sorted(sum(m.indexed for m in index.messages(s)) for s in both) == [0, 3]


def test_claude_meta_and_command_output_not_indexed(tmp_path):
    lines = [
        {"type": "user", "uuid": "a", "sessionId": "s", "cwd": "/w/proj", "timestamp": "2026-01-01T00:00:00Z",
         "isMeta": True, "message": {"role": "user", "content": "Base directory for this skill: zanzibarskill"}},
        {"type": "user", "uuid": "b", "sessionId": "s", "cwd": "/w/proj", "timestamp": "2026-01-01T00:00:01Z",
         "message": {"role": "user", "content": "<command-name>/review</command-name><command-args>quuxargs</command-args>"}},
        {"type": "user", "uuid": "c", "sessionId": "s", "cwd": "/w/proj", "timestamp": "2026-01-01T00:00:02Z",
         "message": {"role": "user", "content": "<local-command-stdout>plughoutput</local-command-stdout>"}},
        {"type": "assistant", "uuid": "d", "sessionId": "s", "cwd": "/w/proj", "timestamp": "2026-01-01T00:00:03Z",
         "message": {"id": "m1", "role": "assistant", "model": "claude-x", "content": [
             {"type": "thinking", "thinking": "", "signature": "c2lnbmF0dXJlc2lnbmF0dXJl"},
             {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/w/proj/main.py"}}]}},
        {"type": "user", "uuid": "e", "sessionId": "s", "cwd": "/w/proj", "timestamp": "2026-01-01T00:00:04Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "xyzzyresult body"},
                                                  {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "QUJD" * 300}}]}},
    ]
    root = tmp_path / "projects" / "-w-proj"
    root.mkdir(parents=True)
    (root / "s.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    index = Index(tmp_path / "i.sqlite3")
    index.update(only_roots({"claude-code": [tmp_path / "projects"]}), now=FIXED_NOW)
    assert not index.search("zanzibarskill").hits  # isMeta
    assert not index.search("plughoutput").hits  # command output
    assert not index.search("xyzzyresult").hits  # tool-result body
    assert not index.search("QUJDQUJD").hits  # base64
    assert index.search("quuxargs").hits[0].message.text == "/review quuxargs"
    assert index.search("main.py").hits[0].message.text == "[Read] /w/proj/main.py"
    messages = index.messages(index.session("s"))
    result = [m for m in messages if m.kind == "tool_result"][0]
    assert result.text == "xyzzyresult body" and result.tool_name == "Read" and not result.indexed


# -- Codex -------------------------------------------------------------------------------
def test_codex_envelope_session(corpus_index):
    s = corpus_index.session("019a93b9-f380-7600-98ff-940e6b99603c")
    assert s.agent == "codex" and s.project_name == "chatbot-ui" and s.model == "gpt-5.1-codex"
    messages = corpus_index.messages(s)
    # event_msg twins (user_message, agent_reasoning) are not indexed a second time.
    assert sum(1 for m in messages if m.role == "user" and m.kind == "text") == 1
    assert sum(1 for m in messages if m.kind == "tool_call") == 39
    assert sum(1 for m in messages if m.kind == "tool_result") == 39
    reasoning = [m for m in messages if m.kind == "thinking"]
    assert len(reasoning) <= 38


def test_codex_injected_context_not_indexed(corpus_index):
    assert not corpus_index.search("Asia/Calcutta").hits  # only inside <environment_context>
    s = corpus_index.session("019e9625-802f-7e91-840a-cfe88d14117a")
    roles = [m.role for m in corpus_index.messages(s)]
    assert roles.count("meta") == 2 and roles.count("user") == 1 and roles.count("assistant") == 1


def _write_lines(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", encoding="utf-8")


def test_codex_ts_era_json_and_early_jsonl_and_subagent(tmp_path):
    sessions = tmp_path / "sessions"
    # 1. TypeScript CLI: one pretty-printed object.
    ts_era = sessions / "rollout-2025-04-20-aaaaaaaa-0000-4000-8000-000000000001.json"
    ts_era.parent.mkdir(parents=True)
    ts_era.write_text(json.dumps({
        "session": {"timestamp": "2025-04-20T10:00:00Z", "id": "aaaaaaaa-0000-4000-8000-000000000001", "instructions": ""},
        "items": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the flaky websocket test"}]},
            {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["bash", "-lc", "pytest tests/test_ws.py"]}), "call_id": "c1"},
            {"type": "function_call_output", "call_id": "c1", "output": json.dumps({"output": "1 failed", "metadata": {"exit_code": 1}})},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "The websocket test races the server start."}]},
        ],
    }, indent=2))
    # 2. Early Rust JSONL: bare header, state markers, bare items.
    _write_lines(sessions / "2025/07/01/rollout-2025-07-01T09-00-00-bbbbbbbb-0000-4000-8000-000000000002.jsonl", [
        {"id": "bbbbbbbb-0000-4000-8000-000000000002", "timestamp": "2025-07-01T09:00:00Z", "instructions": None, "git": {"branch": "main"}},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "migrate the config loader to tomllib"}]},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Need to read config.py first"}], "encrypted_content": "gAAAAAsecret"},
        {"type": "local_shell_call", "call_id": "c2", "action": {"type": "exec", "command": ["cat", "config.py"]}},
    ])
    # 3. Envelope subagent child.
    _write_lines(sessions / "2026/01/02/rollout-2026-01-02T10-00-00-cccccccc-0000-4000-8000-000000000003.jsonl", [
        {"timestamp": "2026-01-02T10:00:00Z", "type": "session_meta", "payload": {
            "id": "cccccccc-0000-4000-8000-000000000003", "cwd": "/w/api", "source": {"subagent": {"thread_spawn": {
                "parent_thread_id": "dddddddd-0000-4000-8000-000000000004", "depth": 1, "agent_nickname": "scout", "agent_role": "explorer"}}}}},
        {"timestamp": "2026-01-02T10:00:01Z", "type": "turn_context", "payload": {"cwd": "/w/api", "model": "gpt-5.5"}},
        {"timestamp": "2026-01-02T10:00:02Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "map the rate limiter"}]}},
        {"timestamp": "2026-01-02T10:00:02Z", "type": "event_msg", "payload": {"type": "user_message", "message": "map the rate limiter"}},
        {"timestamp": "2026-01-02T10:00:03Z", "type": "response_item", "payload": {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c3",
                                                                            "input": "*** Begin Patch\n*** Update File: api/limiter.py\n@@\n-x\n+y\n*** End Patch"}},
        {"timestamp": "2026-01-02T10:00:04Z", "type": "brand_new_record_type", "payload": {"anything": 1}},
    ])
    index = Index(tmp_path / "i.sqlite3")
    summary = index.update(only_roots({"codex": [sessions]}), now=FIXED_NOW)
    assert not summary.problems
    ts = index.session("aaaaaaaa-0000-4000-8000-000000000001")
    assert [m.kind for m in index.messages(ts)] == ["text", "tool_call", "tool_result", "text"]
    assert index.search("flaky websocket").hits[0].session.session_id == ts.session_id
    assert index.search("pytest tests/test_ws.py").hits[0].message.text == "[shell] pytest tests/test_ws.py"
    early = index.session("bbbbbbbb-0000-4000-8000-000000000002")
    assert early.git_branch == "main"
    assert [m.kind for m in index.messages(early)] == ["text", "thinking", "tool_call"]
    assert not index.search("gAAAAAsecret").hits
    child = index.session("cccccccc-0000-4000-8000-000000000003")
    assert child.parent_session_id == "dddddddd-0000-4000-8000-000000000004"
    assert child.model == "gpt-5.5" and child.project_name == "api"
    texts = [m.text for m in index.messages(child)]
    assert texts == ["map the rate limiter", "[apply_patch] apply patch: api/limiter.py"]


# -- Pi ------------------------------------------------------------------------------------
def test_pi_v1_and_v3(corpus_index):
    v3 = corpus_index.session("019e963d-6bd6-7ade-8a49-256ac3391bdd")
    assert v3.title == "agent-history pi smoke" and v3.model == "gpt-5.5"
    named, *rest = corpus_index.messages(v3)
    assert named.text == "Session named: agent-history pi smoke" and named.mark == "session name"  # searchable
    assert [m.role for m in rest] == ["user", "assistant"]
    v1 = corpus_index.session("d703a1a9-1b7b-4fb1-b512-c9738b1fe617")
    assert v1.project_path == "/Users/badlogic/workspaces/pi-mono"
    messages = corpus_index.messages(v1)
    assert sum(1 for m in messages if m.role == "user" and m.kind == "text") == 88
    assert any(m.kind == "tool_call" and m.tool_name for m in messages)


def test_pi_concatenated_line_reads_both_objects(corpus_index):
    s = corpus_index.session("5fd1e58c-9635-410e-a644-133a96057c90")
    # Line 440 holds two objects; the second starts with a thinking block about tmux.
    assert any("sub-agents line now mentions both tmux" in m.text for m in corpus_index.messages(s))


def test_pi_v2_tree_and_compaction(tmp_path):
    folder = tmp_path / "sessions" / "--w-app--"
    _write_lines(folder / "2026-02-01T10-00-00-000Z_eeeeeeee-0000-4000-8000-000000000005.jsonl", [
        {"type": "session", "version": 2, "id": "eeeeeeee-0000-4000-8000-000000000005", "timestamp": "2026-02-01T10:00:00.000Z", "cwd": "/w/app"},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-02-01T10:00:01.000Z",
         "message": {"role": "user", "content": "設定ファイルを直して", "timestamp": 1769940001000}},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "2026-02-01T10:00:02.000Z",
         "message": {"role": "assistant", "model": "m1", "content": [{"type": "toolCall", "id": "t", "name": "read", "arguments": {"path": "config.yml"}}]}},
        {"type": "message", "id": "a3", "parentId": "a2", "timestamp": "2026-02-01T10:00:03.000Z",
         "message": {"role": "toolResult", "toolCallId": "t", "toolName": "read", "content": [{"type": "text", "text": "key: 1"}], "isError": False}},
        {"type": "compaction", "id": "a4", "parentId": "a3", "timestamp": "2026-02-01T10:00:04.000Z", "summary": "Fixed the 驗收 config", "firstKeptEntryId": "a3", "tokensBefore": 100},
        {"type": "message", "id": "b2", "parentId": "a1", "timestamp": "2026-02-01T10:00:05.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "abandoned branch answer"}]}},
    ])
    index = Index(tmp_path / "i.sqlite3")
    index.update(only_roots({"pi": [tmp_path / "sessions"]}), now=FIXED_NOW)
    s = index.session("eeeeeeee-0000-4000-8000-000000000005")
    assert [m.kind for m in index.messages(s)] == ["text", "tool_call", "tool_result", "summary", "text"]
    assert index.search("設定").hits[0].session.session_id == s.session_id
    assert index.search("驗收").hits[0].message.kind == "summary"
    assert index.search("abandoned branch").hits  # every branch stays searchable


# -- CJK ---------------------------------------------------------------------------------
def test_cjk_text_searchable_three_and_two_characters(corpus_index):
    three = corpus_index.search("アップデート")
    assert three.hits and three.hits[0].session.project_name == "Demo"
    two = corpus_index.search("更新")
    assert two.hits and all("更新" in h.message.text for h in two.hits)
    snippet = two.hits[0].snippet
    assert len(snippet) >= 60  # a readable window, not a 24-character fragment

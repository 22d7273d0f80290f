"""Token usage per session, counted from real-format lines: Claude Code repeats one response's
usage on each of its records (each message id counts once, with its last figures), Codex
writes cumulative totals (the last wins), Pi one usage per assistant entry. Totals stay right
when a log grows, and an index from before version 7 counts them when a log is read again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from indexer import Index, only_roots
from indexer.models import TokenUsage

from cli_process import threadback
from conftest import FIXED_NOW


def usage(inp: int, out: int, write: int, read: int) -> dict:
    """A Claude Code ``message.usage`` as 2.1.x writes it (extra fields included)."""
    return {"input_tokens": inp, "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": write, "ephemeral_1h_input_tokens": 0},
            "output_tokens": out, "service_tier": "standard"}


def claude_record(n: int, msg_id: str, block: dict, use: dict) -> dict:
    return {"type": "assistant", "uuid": f"u{n}", "parentUuid": f"u{n - 1}", "sessionId": "s-tok",
            "cwd": "/w/tok", "timestamp": f"2026-06-01T10:00:{n:02d}Z",
            "message": {"id": msg_id, "role": "assistant", "model": "claude-x", "content": [block], "usage": use}}


def write_lines(path: Path, records: list[dict], mode: str = "w") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open(mode, encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in records)


def claude_log(root: Path) -> Path:
    log = root / "-w-tok" / "s-tok.jsonl"
    prompt = {"type": "user", "uuid": "u0", "sessionId": "s-tok", "cwd": "/w/tok",
              "timestamp": "2026-06-01T10:00:00Z", "message": {"role": "user", "content": "count my tokens"}}
    write_lines(log, [
        prompt,
        # One response streamed as two records: output_tokens grows from 5 to 140.
        claude_record(1, "msg_A", {"type": "text", "text": "Looking."}, usage(6, 5, 15126, 0)),
        claude_record(2, "msg_A", {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/x"}},
                      usage(6, 140, 15126, 0)),
        claude_record(3, "msg_B", {"type": "text", "text": "Done."}, usage(1, 101, 2945, 15126)),
    ])
    return log


def tokens_of(index: Index, ref: str) -> TokenUsage | None:
    session = index.session(ref)
    assert session is not None
    return session.tokens


def test_claude_counts_each_message_id_once_with_its_last_figures(tmp_path):
    root = tmp_path / "claude"
    log = claude_log(root)
    roots = only_roots({"claude-code": [root]})
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        assert tokens_of(index, "s-tok") == TokenUsage(7, 241, 18071, 15126)
        # The log grows: msg_B streams a last record (more output), and a new response comes.
        write_lines(log, [
            claude_record(4, "msg_B", {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "ls"}},
                          usage(1, 300, 2945, 15126)),
            claude_record(5, "msg_C", {"type": "text", "text": "More."}, usage(2, 50, 0, 18071)),
        ], mode="a")
        summary = index.update(roots, now=FIXED_NOW)
        assert summary.files_appended == 1  # read from where it stopped, not whole
        assert tokens_of(index, "s-tok") == TokenUsage(9, 490, 18071, 33197)


def codex_line(kind: str, payload: dict, second: int) -> dict:
    return {"timestamp": f"2025-11-17T21:38:{second:02d}.610Z", "type": kind, "payload": payload}


def token_count(inp: int, cached: int, out: int) -> dict:
    return {"type": "token_count", "info": {
        "total_token_usage": {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out,
                              "reasoning_output_tokens": 0, "total_tokens": inp + out},
        "last_token_usage": {"input_tokens": 1, "cached_input_tokens": 0, "output_tokens": 1}},
        "rate_limits": {"primary": {"used_percent": 63.0}}}


def test_codex_takes_the_last_cumulative_total_across_appends(tmp_path):
    root = tmp_path / "codex"
    thread = "019a93b9-f380-7600-98ff-940e6b99603c"
    log = root / "2025" / "11" / "17" / f"rollout-2025-11-17T15-30-28-{thread}.jsonl"
    write_lines(log, [
        codex_line("session_meta", {"id": thread, "cwd": "/w/cx", "timestamp": "2025-11-17T21:38:00Z"}, 0),
        codex_line("event_msg", {"type": "user_message", "message": "hello codex"}, 1),
        codex_line("event_msg", token_count(1000, 800, 50), 2),
        codex_line("event_msg", token_count(1000, 800, 50), 3),  # written twice, as Codex does
    ])
    roots = only_roots({"codex": [root]})
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        assert tokens_of(index, thread) == TokenUsage(200, 50, 0, 800)
        write_lines(log, [codex_line("event_msg", token_count(5000, 4000, 90), 4)], mode="a")
        index.update(roots, now=FIXED_NOW)
        assert tokens_of(index, thread) == TokenUsage(1000, 90, 0, 4000)


def test_pi_adds_each_assistant_entry_and_a_log_without_usage_has_none(tmp_path):
    root = tmp_path / "pi"
    log = root / "--w-pi--" / "2026-06-05T05-24-28-246Z_019e963d-6bd6-7ade-8a49-256ac3391bdd.jsonl"

    def assistant(entry: str, parent: str, inp: int, out: int, read: int, write: int) -> dict:
        return {"type": "message", "id": entry, "parentId": parent, "timestamp": "2026-06-05T05:24:30.000Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": f"reply {entry}"}],
                            "model": "m", "provider": "p", "timestamp": 1780637070000,
                            "usage": {"input": inp, "output": out, "cacheRead": read, "cacheWrite": write,
                                      "totalTokens": inp + out + read + write, "cost": {"total": 0.03}}}}

    write_lines(log, [
        {"type": "session", "version": 3, "id": "019e963d-6bd6-7ade-8a49-256ac3391bdd",
         "timestamp": "2026-06-05T05:24:28.246Z", "cwd": "/w/pi"},
        {"type": "message", "id": "aaaa0001", "parentId": None, "timestamp": "2026-06-05T05:24:29.000Z",
         "message": {"role": "user", "content": "hi pi", "timestamp": 1780637069000}},
        assistant("aaaa0002", "aaaa0001", 3, 88, 0, 4442),
    ])
    plain = tmp_path / "claude"
    write_lines(plain / "-w-x" / "s-plain.jsonl", [
        {"type": "user", "uuid": "p0", "sessionId": "s-plain", "cwd": "/w/x", "timestamp": "2026-06-01T10:00:00Z",
         "message": {"role": "user", "content": "no usage here"}}])
    roots = only_roots({"pi": [root], "claude-code": [plain]})
    with Index(tmp_path / "i.sqlite3") as index:
        index.update(roots, now=FIXED_NOW)
        assert tokens_of(index, "019e963d") == TokenUsage(3, 88, 4442, 0)
        write_lines(log, [assistant("aaaa0003", "aaaa0002", 1, 101, 4442, 8072)], mode="a")
        index.update(roots, now=FIXED_NOW)
        assert tokens_of(index, "019e963d") == TokenUsage(4, 189, 12514, 4442)
        assert tokens_of(index, "s-plain") is None


def test_an_index_from_before_version_7_counts_tokens_when_a_log_is_read_again(tmp_path):
    root = tmp_path / "claude"
    log = claude_log(root)
    roots = only_roots({"claude-code": [root]})
    path = tmp_path / "i.sqlite3"
    with Index(path) as index:
        index.update(roots, now=FIXED_NOW)
    # The file as version 5/6 left it: no token columns, parser states without token totals.
    conn = sqlite3.connect(path, isolation_level=None)
    for column in ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens"):
        conn.execute(f"ALTER TABLE sessions DROP COLUMN {column}")
    for file_id, state in conn.execute("SELECT id, parser_state FROM files").fetchall():
        loaded = json.loads(state)
        loaded.pop("_tokens", None)
        conn.execute("UPDATE files SET parser_state = ? WHERE id = ?", (json.dumps(loaded), file_id))
    conn.execute("PRAGMA user_version = 5")
    conn.close()
    with Index(path) as index:
        assert tokens_of(index, "s-tok") is None  # upgraded: not counted yet, nothing read
        assert index.update(roots, now=FIXED_NOW).bytes_read == 0
        write_lines(log, [claude_record(4, "msg_C", {"type": "text", "text": "More."}, usage(2, 50, 0, 18071))],
                    mode="a")
        summary = index.update(roots, now=FIXED_NOW)
        assert summary.files_reindexed == 1  # read whole once, so the total covers every line
        assert tokens_of(index, "s-tok") == TokenUsage(9, 291, 18071, 33197)
        assert index.session("s-tok").message_count == 5


def test_sessions_json_carries_tokens_and_the_active_mark(tmp_path):
    root = tmp_path / "claude"
    claude_log(root)
    db = tmp_path / "i.sqlite3"
    with Index(db) as index:
        index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)
    proc = threadback("sessions", "--json", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    [found] = json.loads(proc.stdout)
    assert found["tokens"] == {"input": 7, "output": 241, "cache_write": 18071, "cache_read": 15126,
                               "total": 7 + 241 + 18071 + 15126}
    assert found["active"] is False  # written a moment ago, but its messages are old: not active
    assert found["log_modified"].endswith("Z")
    show = threadback("show", "s-tok", "--db", str(db))
    assert "33k tokens (in 7 · out 241 · cache 15k read, 18k written)" in show.stdout

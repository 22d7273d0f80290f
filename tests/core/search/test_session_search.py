"""Session-level search: every word somewhere in one session, sessions ranked by the evidence
added up over their messages, each with its best messages; and its CLI and JSON forms."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.search import candidates, session_search
from tui.cli import exits
from tui.cli.main import main

from conftest import FIXED_NOW


def write_session(root: Path, sid: str, texts: list[str], *, day: int = 1, cwd: str = "/w/demo") -> None:
    folder = root / ("-" + cwd.strip("/").replace("/", "-"))
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, text in enumerate(texts):
        role = "user" if i % 2 == 0 else "assistant"
        content = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(json.dumps({
            "type": role, "uuid": f"{sid}-{i}", "sessionId": sid, "cwd": cwd,
            "timestamp": f"2026-03-{day:02d}T10:{i % 60:02d}:00Z",
            "message": {"role": role, "content": content, **({"id": f"m-{sid}-{i}"} if role == "assistant" else {})},
        }, ensure_ascii=False))
    (folder / f"{sid}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def index_of(root: Path, path: Path) -> Index:
    index = Index(path)
    index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)
    return index


@pytest.fixture
def split(tmp_path) -> Index:
    root = tmp_path / "projects"
    write_session(root, "s-split", ["the loader test is flaky on CI", "it was the timezone: CI runs in UTC"], day=2)
    write_session(root, "s-together", ["a flaky timezone note"], day=3)
    write_session(root, "s-neither", ["nothing about it here", "still nothing"], day=4)
    index = index_of(root, tmp_path / "index.sqlite3")
    yield index
    index.close()


def test_words_in_different_messages_find_their_session(split):
    messages = split.search("flaky timezone", now=FIXED_NOW, closest=False)
    assert {h.session.session_id for h in messages.hits} == {"s-together"}
    sessions = split.search("flaky timezone", by_session=True, now=FIXED_NOW, closest=False)
    assert {s.session.session_id for s in sessions.sessions} == {"s-split", "s-together"}
    assert sessions.by_session and sessions.total == 2
    found = next(s for s in sessions.sessions if s.session.session_id == "s-split")
    assert found.matches == 2 and len(found.evidence) == 2
    assert found.evidence[0].score >= found.evidence[1].score  # best message first
    assert [h.message.id for h in sessions.hits] == [s.evidence[0].message.id for s in sessions.sessions]


def test_exclusions_and_filters_apply_to_sessions(split):
    # The message with UTC goes; s-split keeps only its prompt, so it no longer holds both words.
    left = {s.session.session_id for s in split.search("flaky timezone NOT UTC", by_session=True, now=FIXED_NOW, closest=False).sessions}
    assert left == {"s-together"}
    assert not split.search("flaky timezone agent:codex", by_session=True, now=FIXED_NOW, closest=False).sessions
    assert not split.search("flaky timezone until:2026-03-01", by_session=True, now=FIXED_NOW, closest=False).sessions


def test_a_common_word_outside_its_window_is_checked_in_the_session(tmp_path, monkeypatch):
    """The newest matches of a common word come from other sessions; the old session that
    has both words (in different messages) is still found, by checking it directly."""
    root = tmp_path / "projects"
    write_session(root, "s-old", ["we chased the zebrafish bug", "common words everywhere"], day=1)
    for n in range(6):
        write_session(root, f"s-new-{n}", ["common " * 3, "more common talk"], day=10 + n)
    # An index run reads the most recently changed logs first: s-old gets the lowest ids.
    for n, log in enumerate(sorted(root.rglob("*.jsonl"))):
        os.utime(log, (1_700_000_000 + n, 1_700_000_000 + (10**6 if log.stem == "s-old" else n)))
    index = index_of(root, tmp_path / "index.sqlite3")
    monkeypatch.setattr(session_search, "GROUP_CANDIDATES", 3)
    found = index.search("zebrafish common", by_session=True, now=FIXED_NOW, closest=False)
    assert [s.session.session_id for s in found.sessions] == ["s-old"] and found.capped
    monkeypatch.setattr(session_search, "PROBE_SESSIONS", 0)
    assert not index.search("zebrafish common", by_session=True, now=FIXED_NOW, closest=False).sessions
    index.close()


def test_probed_sessions_read_together_or_one_by_one_give_the_same_answer(tmp_path, monkeypatch):
    """Old sessions missing a common word from its window are checked in one read across all
    of them when that holds few matches, else one by one; the filters apply to both."""
    root = tmp_path / "projects"
    write_session(root, "s-old-1", ["zebrafish bug", "a reply", "common words from the user"], day=1)
    write_session(root, "s-old-2", ["zebrafish again", "nothing here"], day=1)
    write_session(root, "s-old-3", ["zebrafish three", "common in a reply"], day=1)
    for n in range(6):
        write_session(root, f"s-new-{n}", ["common " * 3, "more common talk"], day=10 + n)
    for n, log in enumerate(sorted(root.rglob("*.jsonl"))):
        old = log.stem.startswith("s-old")
        os.utime(log, (1_700_000_000 + n, 1_700_000_000 + (10**6 + n if old else n)))
    index = index_of(root, tmp_path / "index.sqlite3")
    monkeypatch.setattr(session_search, "GROUP_CANDIDATES", 3)
    reads: list[str] = []
    across, one = candidates._read_across, candidates._within_one
    monkeypatch.setattr(candidates, "_read_across", lambda *a: reads.append("across") or across(*a))
    monkeypatch.setattr(candidates, "_within_one", lambda *a: reads.append("one") or one(*a))

    def found(query: str) -> set[str]:
        return {s.session.session_id for s in index.search(query, by_session=True, now=FIXED_NOW, closest=False).sessions}

    for share, path in ((10**6, "across"), (0, "one")):
        monkeypatch.setattr(candidates, "ACROSS_SHARE", share)
        reads.clear()
        assert found("zebrafish common") == {"s-old-1", "s-old-3"}
        assert found("zebrafish common role:user") == {"s-old-1"}
        assert path in reads
    index.close()


def test_short_words_must_be_in_the_messages_the_others_found(tmp_path):
    root = tmp_path / "projects"
    write_session(root, "s-flag", ["run nginx -s reload now", "done"], day=1)
    write_session(root, "s-prose", ["nginx reload by systemctl", "a -s elsewhere in the session"], day=2)
    index = index_of(root, tmp_path / "index.sqlite3")
    found = [s.session.session_id for s in index.search("nginx -s reload", by_session=True, now=FIXED_NOW, closest=False).sessions]
    assert found == ["s-flag"]
    index.close()


def test_cli_sessions_text_and_json(split, capsys):
    db = ["--db", str(split.path)]
    assert main([*db, "search", "flaky", "timezone", "--sessions"]) == exits.OK
    out = capsys.readouterr().out
    assert "[1] claude-code" in out and "matching messages" in out and "session s-split" in out
    assert main([*db, "search", "flaky timezone", "-1", "--json"]) == exits.OK
    data = json.loads(capsys.readouterr().out)
    assert data["view"] == "sessions" and data["total"] == 2
    first = data["sessions"][0]
    assert {"session_id", "score", "matching_messages", "resume", "evidence", "parent_session_id"} <= set(first)
    assert first["resume"]["command"].endswith(f"claude --resume {first['session_id']}")
    assert data["hits"][0] == first["evidence"][0]
    assert main([*db, "search", "write a poem about nothing"]) in (exits.OK, exits.NOTHING_FOUND)
    assert "ignored “a”" in capsys.readouterr().err


def test_cli_huge_and_pasted_queries_never_fail(split):
    import subprocess
    import sys

    for words in (["nginx", "-s", "reload"], ["git", "merge", "--no-ff"], [f"w{i}" for i in range(1500)]):
        proc = subprocess.run([sys.executable, "-m", "tui.cli", "--db", str(split.path), "search", *words],
                              capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parents[3])
        assert proc.returncode in (exits.OK, exits.NOTHING_FOUND), proc.stderr
        assert "Traceback" not in proc.stderr


def test_a_change_to_every_hit_reaches_the_session_evidence(split):

    result = split.search("flaky timezone", by_session=True, now=FIXED_NOW)
    hidden = result.map_hits(lambda h: h._replace(snippet="[hidden]"))
    assert {h.snippet for h in hidden.hits} == {"[hidden]"}
    assert {e.snippet for s in hidden.sessions for e in s.evidence} == {"[hidden]"}
    assert hidden.hits[0] is hidden.sessions[0].evidence[0]  # still the same objects in both places


def test_cli_sessions_masks_a_secret_in_every_evidence_message(tmp_path, capsys):
    """The session view prints each session's evidence, not only its best hit, and its title (the
    first prompt): a token pasted there is masked in text and JSON alike, as in `show`'s header
    and the `sessions` list, and shown on request."""
    token = "ghp_" + "R4nd0mT0k3nV4lu3" + "xY9zQ2wE5rT8uI1oP3aS"
    root = tmp_path / "projects"
    write_session(root, "s-leaky", [f"the websocket timeout is back; my token is {token}",
                                    "Fixed the websocket timeout by raising ping_interval.",
                                    f"websocket again? I pasted {token} in the env"], day=2)
    index_of(root, tmp_path / "index.sqlite3").close()
    db = ["--db", str(tmp_path / "index.sqlite3")]

    assert main([*db, "search", "websocket", "ping_interval", "--sessions", "-C", "1"]) == exits.OK
    out = capsys.readouterr().out
    assert "session s-leaky" in out and "[masked" in out and "R4nd0mT0k3n" not in out
    assert main([*db, "search", "websocket", "ping_interval", "--sessions", "-C", "1", "--json"]) == exits.OK
    data = json.loads(capsys.readouterr().out)
    evidence = data["sessions"][0]["evidence"]
    assert len(evidence) >= 2 and any("[masked" in e["snippet"] for e in evidence)
    assert "R4nd0mT0k3n" not in json.dumps(data)
    for argv in (["show", "s-leaky"], ["sessions"], ["sessions", "--json"]):
        assert main([*db, *argv]) == exits.OK
        out = capsys.readouterr().out
        assert "websocket" in out and "R4nd0mT0k3n" not in out, argv
    assert main([*db, "search", "websocket", "ping_interval", "--sessions", "--show-secrets"]) == exits.OK
    assert token in capsys.readouterr().out  # the index keeps the original

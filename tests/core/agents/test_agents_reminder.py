"""The prompt reminder injects only hits that pass the relevance bar, each with the command that
opens it, on a real index built from log trees written here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from indexer import Index
from indexer.agents import hooks
from indexer.agents.recall import detect_recall
from indexer.agents.relevance import SNIPPET_CHARS, closest_window, real_matches, relevant_hits, word_subsets

from agent_logs import build_index, claude_session

ROOT = Path(__file__).resolve().parents[3]
CALLER = "cafe0000-0000-4000-8000-000000000000"
FAR = "x " * 2000


def write_noise(root: Path) -> None:
    """Sessions where "redis" and "port" occur, but not as the words of a redis port."""
    claude_session(root, "import-noise", "shop", [
        "why does this module fail?\nimport redis\nimport os\nfrom app import settings",
        "The import of redis fails because the package is not installed.",
    ], day=2)
    claude_session(root, "support-noise", "crm", [
        "we need support for redis clusters and a report of the keys",
        "Cluster support needs redis 7; the report is in reports/keys.md.",
    ], day=3)
    claude_session(root, "far-apart", "crm", ["redis " + FAR + " port", "ok"], day=4)
    claude_session(root, "port-only", "crm", ["the port 8080 is busy", "I freed port 8080."], day=5)


@pytest.fixture(scope="module")
def redis_index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("logs") / "projects"
    claude_session(root, "redis-good", "shop", [
        "the redis port clashes with the metrics container, can you move it?",
        "I moved the redis port to 6380 in docker-compose.yml and updated REDIS_URL.",
    ])
    write_noise(root)
    claude_session(root, CALLER, "shop", ["same trick as with the redis port please", "sure"], day=6)
    return build_index(root, tmp_path_factory.mktemp("db") / "index.sqlite3")


def payload(prompt: str, session: str = CALLER) -> dict:
    return {"session_id": session, "transcript_path": f"/home/u/.claude/projects/-w-shop/{session}.jsonl",
            "cwd": str(ROOT), "hook_event_name": "UserPromptSubmit", "prompt": prompt}


def test_a_word_must_start_a_word_and_whole_words_are_told_apart():
    assert real_matches("import os; from x import y", "port") == []
    assert real_matches("support and report", "port") == []
    assert real_matches("open ports", "port") == [(5, False)]
    assert [whole for _, whole in real_matches("redis_port, redisPort, port:", "port")] == [True, True, True]
    assert real_matches("sqlite3.connect(path)", "sqlite3") == [(0, True)]
    assert real_matches("修改設定檔", "設定") == [(2, True)]
    assert real_matches("use .env files", ".env") == [(4, True)]


def test_closest_window_and_word_sets():
    assert closest_window([[0, 50], [40, 900]]) == (40, 50)
    assert closest_window([[1], []]) is None
    assert word_subsets(["redis", "port"]) == [("redis", "port")]
    assert word_subsets(["redis", "port", "kubernetes"]) == [
        ("redis", "port", "kubernetes"), ("redis", "kubernetes"), ("port", "kubernetes"), ("redis", "port")]


def test_redis_port_injects_only_the_session_that_really_matches(redis_index):
    answer = hooks.prompt(payload("same trick as with the redis port"), redis_index)
    text = answer.text
    assert "threadback show redis-good --around " in text
    for noise in ("import-noise", "support-noise", "far-apart", "port-only", CALLER):
        assert noise not in text.split("<memory", 1)[-1]
    assert answer.usage.query == "redis port" and answer.usage.hits == 1
    line = next(x for x in text.splitlines() if "redis-good" in x)
    assert "redis port" in line and "shop" in line


def test_each_hit_opens_with_its_command(redis_index):
    text = hooks.prompt(payload("same trick as with the redis port"), redis_index).text
    command = next(x for x in text.splitlines() if "redis-good" in x).split("`")[1]
    proc = subprocess.run([sys.executable, "-m", "tui.cli", *command.split()[1:]], capture_output=True,
                          cwd=ROOT, env={**os.environ, "THREADBACK_DB": str(redis_index), "NO_COLOR": "1"}, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert b"6380" in proc.stdout or b"redis port" in proc.stdout


def test_nothing_is_injected_when_only_substrings_match(tmp_path):
    root = tmp_path / "projects"
    write_noise(root)
    db = build_index(root, tmp_path / "index.sqlite3")
    with Index(db) as index:  # the index alone does find them
        assert {h.session.session_id for h in index.search("redis port").hits} >= {"import-noise", "support-noise"}
    text = hooks.prompt(payload("same trick as with the redis port"), db).text
    assert "threadback search" in text and "<memory" not in text and "no direct match" in text


def test_three_words_fall_back_to_all_but_one_never_to_one(redis_index):
    with Index(redis_index) as index:
        def search(query: str):
            return index.search(query, limit=40, exclude_sessions=(CALLER,)).hits

        found = relevant_hits(search, ["redis", "port", "kubernetes"], limit=3)
        assert found.query == "redis port" and [h.hit.session.session_id for h in found.hits] == ["redis-good"]
        assert found.searched[0] == "redis port kubernetes"
        assert relevant_hits(search, ["port", "kubernetes"], limit=3).hits == ()


def test_the_reminder_keeps_its_byte_cap(tmp_path, monkeypatch):
    root = tmp_path / "projects"
    for n in range(6):
        claude_session(root, f"long-{n}", "big", ["設定檔的快取失效問題 " * 200, "修好了快取失效"], day=n + 1)
    db = build_index(root, tmp_path / "index.sqlite3")
    match = detect_recall("我記得上次有處理過 快取失效")
    assert match is not None
    full = hooks.prompt(payload("我記得上次有處理過 快取失效"), db).text
    assert full.count("threadback show long-") == hooks.PROMPT_HITS
    assert len(full.encode("utf-8")) <= hooks.REMINDER_MAX_BYTES
    monkeypatch.setattr(hooks, "REMINDER_MAX_BYTES", 1200)
    capped = hooks.prompt(payload("我記得上次有處理過 快取失效"), db).text
    assert len(capped.encode("utf-8")) <= 1200 and 0 < capped.count("threadback show long-") < hooks.PROMPT_HITS
    assert capped.rstrip().endswith("</memory>")


def test_the_hook_subprocess_answers_with_the_relevant_hit(redis_index, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("THREADBACK_", "CLAUDE_"))}
    env.update({"THREADBACK_DB": str(redis_index), "THREADBACK_HOME": str(tmp_path / "home"),
                "THREADBACK_MEMORY_DIR": str(tmp_path / "memory")})
    proc = subprocess.run([sys.executable, "-m", "tui.cli", "hook", "prompt"], capture_output=True, cwd=ROOT, env=env,
                          input=json.dumps(payload("same trick as with the redis port")).encode(), timeout=30)
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit"
    assert "threadback show redis-good --around" in out["additionalContext"]
    assert "import-noise" not in out["additionalContext"]


@pytest.fixture(scope="module")
def error_index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("errors") / "projects"
    claude_session(root, "tomlkit-fix", "tb", [
        "pytest dies at collection, see the output",
        "The traceback ends in ModuleNotFoundError: No module named 'tomlkit'. It is missing from the test "
        "extra; I added tomlkit to pyproject.toml and reinstalled.",
    ])
    claude_session(root, "spec", "calc", [
        "write a function that raises ValueError for negative input", "done: parse() raises ValueError"], day=2)
    return build_index(root, tmp_path_factory.mktemp("db") / "index.sqlite3")


def test_a_reported_error_seen_before_earns_a_reminder_without_a_trigger(error_index):
    prompt = "why does pytest fail with ModuleNotFoundError: No module named tomlkit"
    assert detect_recall(prompt) is None
    answer = hooks.prompt(payload(prompt), error_index)
    assert answer.text.startswith("Threadback: ModuleNotFoundError has come up in past sessions")
    assert "threadback show tomlkit-fix --around " in answer.text and answer.text.rstrip().endswith("</memory>")
    assert answer.usage.fired is False and answer.usage.hits == 1 and "tomlkit" in answer.usage.query


@pytest.mark.parametrize("prompt", [
    "pytest fails with ModuleNotFoundError: No module named yaml",  # the same error about another module
    "Write a function that raises ValueError when the input is negative",  # a spec, not a failure
    "add a unit test for the config parser",  # no error at all
])
def test_the_evidence_gate_stays_quiet_otherwise(error_index, prompt):
    answer = hooks.prompt(payload(prompt), error_index)
    assert answer.text == "" and answer.usage.query is None and answer.usage.fired is False


def test_a_secret_cut_off_at_the_snippets_edge_is_masked_in_the_reminder(tmp_path):
    """The reminder's snippet is a window around the match, so it can end inside a token; the
    piece it shows is masked all the same (the whole message is scanned, ``indexer.output.masking``)."""
    token = "ghp_" + "R4nd0mT0k3nV4lu3" + "xY9zQ2wE5rT8uI1oP3aS"
    root = tmp_path / "projects"
    head = "the websocket timeout is back. " + "we tried the ping interval and the retry settings, " * 4
    head = head[:SNIPPET_CHARS - 12] + " "  # the snippet ends 12 characters into the token
    claude_session(root, "leaky", "api", [head + token + " is what I used", "ok"])
    db = build_index(root, tmp_path / "index.sqlite3")
    text = hooks.prompt(payload("didn't we fix the websocket timeout before?"), db).text
    assert "threadback show leaky --around " in text  # the hit is shown ...
    assert "ghp_R4nd" not in text and "[masked" in text  # ... and no piece of the token
